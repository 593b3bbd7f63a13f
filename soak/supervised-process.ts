import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

/** What a fault can hit; also the label of faults and recovery times in the report. */
export type ComponentKind = 'apiserver' | 'etcd' | 'controller-manager' | 'scheduler' | 'kubelet' | 'proxy';

export interface SupervisedOptions {
  name: string;
  kind: ComponentKind;
  /** The executable and its arguments; called at every (re)start. */
  command: () => { file: string; args: string[] };
  /** True once the process serves (health endpoint, node Ready, …). */
  ready: () => Promise<boolean>;
  /** stderr and stdout are appended here, across restarts. */
  logPath: string;
  env?: Record<string, string>;
}

/**
 * One component process the soak owns: it can be killed with SIGKILL,
 * paused with SIGSTOP and resumed, and restarted with the same arguments.
 * A process that exits while nobody killed it is restarted too (as systemd
 * would) and counted, so a crash shows in the report instead of hiding as a
 * fault.
 */
export class SupervisedProcess {
  readonly name: string;
  readonly kind: ComponentKind;
  /** Exits the soak did not cause (the process exited or crashed by itself). */
  selfExits = 0;
  /** Exits while a fault that may crash it (a full disk) was on: restarted all the same, but not counted as selfExits. */
  faultExits = 0;
  /** Set while such a fault is on. */
  exitsExpected = false;
  private proc: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private expectingExit = false;
  private paused = false;
  private stopped = false;
  private tail = '';
  private readonly log: WriteStream;

  constructor(private readonly opts: SupervisedOptions) {
    this.name = opts.name;
    this.kind = opts.kind;
    this.log = createWriteStream(opts.logPath, { flags: 'a' });
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  get running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** The last few KB of output, for a failure message. */
  logs(): string {
    return this.tail;
  }

  start(): void {
    if (this.running) return;
    const { file, args } = this.opts.command();
    this.expectingExit = false;
    this.paused = false;
    const proc = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info', ...this.opts.env } });
    this.proc = proc;
    const keep = (d: Buffer) => {
      this.log.write(d);
      this.tail = (this.tail + d.toString()).slice(-6000);
    };
    proc.stdout!.on('data', keep);
    proc.stderr!.on('data', keep);
    this.log.write(`--- soak: started ${this.name} pid ${proc.pid} at ${new Date().toISOString()}\n`);
    this.exited = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        this.log.write(`--- soak: ${this.name} pid ${proc.pid} exited (${signal ?? code}) at ${new Date().toISOString()}\n`);
        resolve();
        if (!this.expectingExit && !this.stopped) {
          if (this.exitsExpected) this.faultExits++;
          else this.selfExits++;
          // as a service manager would: start it again after a moment
          setTimeout(() => {
            if (!this.stopped && !this.running) this.start();
          }, 1000).unref();
        }
      });
    });
    proc.once('error', (err) => this.log.write(`--- soak: spawn error ${String(err)}\n`));
  }

  /** SIGKILL (resuming it first if paused, so it dies at once) and wait for the exit. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc || !this.running) return;
    this.expectingExit = true;
    proc.kill('SIGKILL');
    if (this.paused) proc.kill('SIGCONT');
    this.paused = false;
    await this.exited;
  }

  pause(): void {
    if (!this.running || this.paused) return;
    this.paused = true;
    this.proc!.kill('SIGSTOP');
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.running) this.proc!.kill('SIGCONT');
  }

  /** Polls `ready` until it holds; returns false at the deadline. */
  async waitReady(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !signal?.aborted) {
      try {
        if (this.running && (await this.opts.ready())) return true;
      } catch {
        // not serving yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    return false;
  }

  /** SIGTERM, then SIGKILL after `graceMs`; no restart afterwards. */
  async stop(graceMs = 20_000): Promise<void> {
    this.stopped = true;
    this.resume();
    const proc = this.proc;
    if (proc && this.running) {
      this.expectingExit = true;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => this.log.end(resolve));
  }
}
