import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../machinery/logger.js';
import { pauseImageArchive, PAUSE_IMAGE } from '../images/busybox-image.js';
import { importImages } from '../images/ctr-images.js';
import { CriClient } from '../runtime/cri/cri-client.js';
import { registryAuthToml, writeRegistryHosts, type Registries } from './registries-config.js';
import { containerdConfig, containerdPaths, hostCgroupDriver, needsRestrictedOomScoreAdj } from './containerd-config.js';

export interface ContainerdSupervisorOptions {
  /** containerd's own directory under the kubelet's data dir. */
  dir: string;
  cniBinDir: string;
  cniConfDir: string;
  logger: Logger;
  /** Per-registry host configs; defaults to `<dir>/certs.d`. */
  registryConfigDir?: string;
  /** Mirrors, auth and TLS per registry (the `--registries` file), written as hosts.toml files and CRI auth. */
  registries?: Registries;
  binary?: string;
}

/** containerd did not answer on its socket in time. */
export class ContainerdStartError extends Error {
  override readonly name = 'ContainerdStartError';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs the kubelet's own containerd, as k3s does: a config generated into
 * the data dir, the sandbox image imported at start (built offline), a
 * restart whenever it dies, and a stop on shutdown that leaves containers
 * running (their shims are separate processes). A containerd left behind
 * by a kubelet that was killed is replaced the same way.
 */
export class ContainerdSupervisor {
  private child?: ChildProcess;
  private stopping = false;
  private restarts = 0;
  readonly paths: ReturnType<typeof containerdPaths>;

  constructor(private readonly opts: ContainerdSupervisorOptions) {
    this.paths = containerdPaths(opts.dir);
  }

  get endpoint(): string {
    return `unix://${this.paths.socket}`;
  }

  private get pidFile(): string {
    return join(this.opts.dir, 'containerd.pid');
  }

  /** Writes the config, starts containerd, waits for its CRI service and imports the sandbox image. */
  async start(): Promise<string> {
    const registryConfigDir = this.opts.registryConfigDir ?? join(this.opts.dir, 'certs.d');
    for (const d of [this.opts.dir, this.opts.cniConfDir, registryConfigDir]) mkdirSync(d, { recursive: true });
    writeRegistryHosts(registryConfigDir, this.opts.registries ?? { mirrors: {}, configs: {} });
    writeFileSync(this.paths.config, containerdConfig({
      dir: this.opts.dir, sandboxImage: PAUSE_IMAGE, cniBinDir: this.opts.cniBinDir, cniConfDir: this.opts.cniConfDir,
      cgroupDriver: hostCgroupDriver(), registryConfigDir, restrictOomScoreAdj: needsRestrictedOomScoreAdj(),
      registryAuth: this.opts.registries ? registryAuthToml(this.opts.registries) : undefined,
    }));
    await this.stopLeftover();
    this.spawn();
    await this.waitReady(30_000);
    const archive = join(this.opts.dir, 'pause.tar');
    writeFileSync(archive, pauseImageArchive());
    await importImages(this.paths.socket, [archive]);
    this.opts.logger.info('containerd started', { socket: this.paths.socket, pid: this.child?.pid });
    return this.endpoint;
  }

  private spawn(): void {
    const log = openSync(this.paths.log, 'a');
    // its own process group: a terminal's Ctrl-C to the kubelet must not reach it, the kubelet stops it in order
    const child = spawn(this.opts.binary ?? 'containerd', ['--config', this.paths.config], { stdio: ['ignore', log, log], detached: true });
    closeSync(log);
    this.child = child;
    if (child.pid) writeFileSync(this.pidFile, String(child.pid));
    child.on('error', (err) => this.opts.logger.error('containerd failed to start', { error: err.message }));
    child.on('exit', (code, signal) => {
      if (this.stopping || this.child !== child) return;
      this.restarts++;
      const delay = Math.min(30_000, 500 * 2 ** Math.min(this.restarts, 6));
      this.opts.logger.warn('containerd exited; restarting it', { code, signal, inMs: delay });
      setTimeout(() => {
        if (!this.stopping) this.spawn();
      }, delay).unref();
    });
  }

  /** Replaces a containerd that a previous kubelet (killed without a chance to stop it) left running on our socket. */
  private async stopLeftover(): Promise<void> {
    if (!existsSync(this.pidFile)) return;
    const pid = Number(readFileSync(this.pidFile, 'utf8'));
    rmSync(this.pidFile, { force: true });
    if (!pid || !alive(pid)) return;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      return;
    }
    if (!cmd.includes(this.paths.config)) return;
    this.opts.logger.info('stopping the containerd a previous kubelet left running', { pid });
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 15_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }

  /** Waits until containerd's CRI service answers on the socket. */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      if (existsSync(this.paths.socket)) {
        const client = new CriClient(this.endpoint);
        try {
          await client.runtime('Version', { version: 'v1' }, 2000);
          return;
        } catch (err) {
          last = err instanceof Error ? err.message : String(err);
        } finally {
          client.close();
        }
      }
      if (this.child?.exitCode !== null && this.child?.exitCode !== undefined && this.restarts === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new ContainerdStartError(`containerd did not become ready (see ${this.paths.log})${last ? `: ${last}` : ''}`);
  }

  /** Stops containerd (SIGTERM, then SIGKILL); running containers keep running under their shims. */
  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    rmSync(this.pidFile, { force: true });
  }
}
