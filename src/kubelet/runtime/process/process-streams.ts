import { spawn } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { PassThrough } from 'node:stream';
import { RuntimeError, type ContainerStreams, type StreamOptions } from '../runtime.js';
import { shellQuote } from './container-script.js';

/** What an exec needs to know of its container. */
export interface ExecTarget {
  /** The container's main process: its namespaces are entered when isolated. */
  pid: number;
  isolate: boolean;
  env: Record<string, string>;
  workingDir?: string;
}

/**
 * The argv that runs `argv` in the container's context: inside its mount and
 * UTS namespaces (through nsenter, then cd to its working directory there), and
 * under `script` when a terminal is wanted, since script owns a pty and passes
 * the command's exit status back (-e).
 */
export function execArgv(target: ExecTarget, argv: readonly string[], tty: boolean, size?: { width: number; height: number }): { argv: string[]; cwd: string } {
  const wd = target.workingDir ?? '/';
  let inner: string[] = target.isolate
    ? ['nsenter', '-t', String(target.pid), '-m', '-u', '--', 'sh', '-c', 'cd -- "$0" 2>/dev/null; exec "$@"', wd, ...argv]
    : [...argv];
  if (tty && size) inner = ['sh', '-c', `stty cols ${Math.floor(size.width)} rows ${Math.floor(size.height)} 2>/dev/null; exec "$@"`, 'sh', ...inner];
  if (tty) inner = onTerminal(inner);
  return { argv: inner, cwd: target.isolate ? '/' : wd };
}

/**
 * `argv` run on a terminal of its own: `script` owns a pty, copies its stdin
 * in and the terminal's output out, and exits with the command's status (-e).
 */
export function onTerminal(argv: readonly string[]): string[] {
  return ['script', '-q', '-e', '-f', '-c', argv.map(shellQuote).join(' '), '/dev/null'];
}

/** Spawns an exec'd command with live streams; fails like CRI (the command cannot start) before resolving. */
export async function spawnExec(target: ExecTarget, argv: readonly string[], opts: StreamOptions, path: string): Promise<ContainerStreams> {
  const cmd = execArgv(target, argv, opts.tty, opts.initialSize);
  const env = { PATH: path, ...target.env, ...(opts.tty ? { TERM: target.env.TERM ?? 'xterm' } : {}) };
  const child = spawn(cmd.argv[0], cmd.argv.slice(1), { env, cwd: cmd.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (err) => reject(new RuntimeError('RunContainerError', `exec failed: ${err.message}`)));
  });
  child.stdin!.on('error', () => undefined);
  if (!opts.stdin) child.stdin!.end();
  const done = new Promise<{ exitCode: number }>((resolve) => {
    // 'close' rather than 'exit': every byte of output has been read by then
    child.once('close', (code, signal) => resolve({ exitCode: code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0) }));
  });
  // under a pty everything arrives on stdout; script's own stderr is noise
  if (opts.tty) child.stderr!.resume();
  return {
    stdin: opts.stdin ? child.stdin! : undefined,
    stdout: child.stdout!,
    stderr: opts.tty ? undefined : child.stderr!,
    done,
    resize: (w, h) => void resizeTerminal(child.pid, w, h, () => child.exitCode === null),
    close: () => child.kill('SIGKILL'),
  };
}

/**
 * Sets the size of the terminal `script` (process `pid`) made for its child
 * (found as that child's stdin); the kernel then sends SIGWINCH to the
 * foreground job. Best effort, retried briefly because the first size
 * arrives with the connection, before the child exists; settles once set.
 */
export async function resizeTerminal(pid: number | undefined, width: number, height: number, alive: () => boolean): Promise<void> {
  for (let tries = 10; pid && alive(); tries--) {
    let tty: string | undefined;
    try {
      const kid = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];
      if (kid) tty = readlinkSync(`/proc/${kid}/fd/0`);
    } catch {
      tty = undefined;
    }
    if (tty?.startsWith('/dev/pts/')) {
      const stty = spawn('stty', ['-F', tty, 'cols', String(width), 'rows', String(height)], { stdio: 'ignore' });
      return new Promise((resolve) => stty.on('error', () => resolve()).on('exit', () => resolve()));
    }
    if (tries <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50).unref());
  }
}

/**
 * Fans a container's output out to attached sessions and owns its stdin
 * pipe: several attaches may share it; with `stdinOnce` it closes when the
 * first attached session that wrote to it goes away.
 */
export class AttachHub {
  private readonly sessions = new Set<{ stdout?: PassThrough; stderr?: PassThrough; end: (code: number) => void }>();
  private exitCode?: number;

  constructor(
    private readonly stdin: NodeJS.WritableStream | undefined,
    private readonly stdinOnce: boolean,
    /** Resizes the container's terminal (a `tty` container), for sessions that attach with a tty. */
    private readonly resize: (width: number, height: number) => void = () => undefined,
  ) {
    (stdin as NodeJS.WritableStream & { on?: (e: string, f: () => void) => void })?.on?.('error', () => undefined);
  }

  write(stream: 'stdout' | 'stderr', data: Buffer): void {
    for (const s of this.sessions) (stream === 'stderr' ? (s.stderr ?? s.stdout) : s.stdout)?.write(data);
  }

  /** The container exited: every session ends. */
  end(exitCode: number): void {
    this.exitCode = exitCode;
    for (const s of [...this.sessions]) s.end(exitCode);
  }

  attach(opts: StreamOptions): ContainerStreams {
    if (this.exitCode !== undefined) throw new RuntimeError('RunContainerError', 'container is not running');
    const stdout = opts.stdout || opts.tty ? new PassThrough() : undefined;
    const stderr = opts.stderr && !opts.tty ? new PassThrough() : undefined;
    let input: PassThrough | undefined;
    if (opts.stdin && this.stdin) {
      input = new PassThrough();
      input.on('data', (d: Buffer) => this.stdin!.write(d));
      input.on('end', () => {
        if (this.stdinOnce) this.stdin!.end();
      });
    } else if (opts.stdin) input = new PassThrough().resume();
    let resolveDone!: (r: { exitCode: number }) => void;
    const done = new Promise<{ exitCode: number }>((resolve) => (resolveDone = resolve));
    const session = {
      stdout,
      stderr,
      end: (code: number) => {
        if (!this.sessions.delete(session)) return;
        stdout?.end();
        stderr?.end();
        resolveDone({ exitCode: code });
      },
    };
    this.sessions.add(session);
    // the client's first size arrives with the connection, before the session exists: it is the terminal's size from now on
    if (opts.tty && opts.initialSize) this.resize(opts.initialSize.width, opts.initialSize.height);
    return {
      stdin: input,
      stdout,
      stderr,
      done,
      resize: (width, height) => {
        if (opts.tty) this.resize(width, height);
      },
      close: () => {
        if (input && this.stdin && this.stdinOnce) this.stdin.end();
        session.end(0);
      },
    };
  }
}
