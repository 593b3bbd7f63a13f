import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants as fsConstants, mkdirSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { constants as osConstants } from 'node:os';
import {
  RuntimeError,
  type ContainerConfig,
  type ContainerStatus,
  type ContainerStreams,
  type ExecResult,
  type PodSandboxConfig,
  type PodSandboxStatus,
  type Runtime,
  type RuntimeVersion,
  type StreamOptions,
} from '../runtime.js';
import { dialPort } from '../dial-port.js';
import { ContainerCgroup } from './cgroup.js';
import { CriLogWriter } from './cri-log-writer.js';
import { containerScript } from './container-script.js';
import { AttachHub, spawnExec } from './process-streams.js';

export interface ProcessRuntimeOptions {
  /** IP reported for pods (they share the host's network). */
  hostIP?: string;
  /** Use mount/UTS namespaces and cgroups (needs root); default: when running as root. */
  isolate?: boolean;
}

interface Sandbox {
  status: PodSandboxStatus;
  config: PodSandboxConfig;
}

interface ProcessContainer {
  status: ContainerStatus;
  config: ContainerConfig;
  child?: ChildProcess;
  cgroup?: ContainerCgroup;
  exited?: Promise<void>;
  attach?: AttachHub;
}

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Runs each container as a host process from the host's filesystem (no
 * images yet). As root each container gets private mount and UTS namespaces,
 * so volumes appear at their mountPath and the hostname is the pod's, and a
 * cgroup carrying its memory and CPU limits so that an OOM kill is reported.
 * Each container leads its own process group, which stop signals as a whole.
 */
export class ProcessRuntime implements Runtime {
  private readonly sandboxes = new Map<string, Sandbox>();
  private readonly containers = new Map<string, ProcessContainer>();
  private readonly listeners: ((s: ContainerStatus) => void)[] = [];
  readonly isolate: boolean;

  constructor(private readonly options: ProcessRuntimeOptions = {}) {
    this.isolate = options.isolate ?? process.getuid?.() === 0;
  }

  version(): RuntimeVersion {
    return { runtimeName: 'skiff-process', runtimeVersion: '0.1.0' };
  }

  onContainerEvent(listener: (status: ContainerStatus) => void): void {
    this.listeners.push(listener);
  }

  async runPodSandbox(config: PodSandboxConfig): Promise<PodSandboxStatus> {
    mkdirSync(config.logDirectory, { recursive: true });
    const status: PodSandboxStatus = { id: randomUUID(), podUid: config.uid, state: 'Ready', ip: this.options.hostIP, createdAt: new Date() };
    this.sandboxes.set(status.id, { status, config });
    return { ...status };
  }

  async stopPodSandbox(id: string): Promise<void> {
    const sb = this.sandboxes.get(id);
    if (!sb) return;
    await Promise.all([...this.containers.values()].filter((c) => c.status.sandboxId === id).map((c) => this.stopContainer(c.status.id, 0)));
    sb.status.state = 'NotReady';
  }

  async removePodSandbox(id: string): Promise<void> {
    await this.stopPodSandbox(id);
    for (const c of [...this.containers.values()]) if (c.status.sandboxId === id) await this.removeContainer(c.status.id);
    this.sandboxes.delete(id);
  }

  async listPodSandboxes(): Promise<PodSandboxStatus[]> {
    return [...this.sandboxes.values()].map((s) => ({ ...s.status }));
  }

  async createContainer(sandboxId: string, config: ContainerConfig): Promise<string> {
    const sb = this.sandboxes.get(sandboxId);
    if (!sb) throw new RuntimeError('NotFound', `pod sandbox ${sandboxId} not found`);
    if (config.argv.length === 0) {
      throw new RuntimeError('CreateContainerError', `container ${config.name} has no command: the process runtime cannot pull image "${config.image}", so the command must be given`);
    }
    const exe = config.argv[0];
    if (!resolveExecutable(exe, config.env.PATH ?? DEFAULT_PATH)) {
      throw new RuntimeError('CreateContainerError', `exec: "${exe}": executable file not found in $PATH`);
    }
    for (const m of config.mounts) {
      if (!this.isolate) break;
      try {
        statSync(m.hostPath);
      } catch {
        throw new RuntimeError('CreateContainerError', `volume source ${m.hostPath} for ${m.containerPath} does not exist`);
      }
    }
    const id = randomUUID();
    this.containers.set(id, {
      config,
      status: {
        id, sandboxId, name: config.name, attempt: config.attempt, image: config.image, state: 'Created',
        createdAt: new Date(), logPath: config.logPath, labels: { ...config.labels },
      },
    });
    return id;
  }

  async startContainer(id: string): Promise<void> {
    const c = this.get(id);
    if (c.status.state !== 'Created') throw new RuntimeError('RunContainerError', `container ${id} is ${c.status.state}, not Created`);
    const sb = this.sandboxes.get(c.status.sandboxId)!;
    if (this.isolate) {
      c.cgroup = await ContainerCgroup.create(sb.config.uid, id, { memory: c.config.memoryLimit, cpuMillis: c.config.cpuLimitMillis });
    }
    const script = containerScript({
      hostname: this.isolate ? sb.config.hostname : undefined,
      mounts: this.isolate ? c.config.mounts : [],
      cgroupProcs: c.cgroup?.procsFiles() ?? [],
      workingDir: c.config.workingDir,
    });
    const argv = this.isolate
      ? ['unshare', '--mount', '--uts', '--propagation', 'private', '--', 'sh', '-c', script, 'skiff-container', ...c.config.argv]
      : ['sh', '-c', script, 'skiff-container', ...c.config.argv];
    const log = new CriLogWriter(c.config.logPath);
    const child = spawn(argv[0], argv.slice(1), {
      env: { PATH: DEFAULT_PATH, ...c.config.env },
      cwd: '/',
      detached: true,
      stdio: [c.config.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    c.child = child;
    const hub = new AttachHub(child.stdin ?? undefined, c.config.stdinOnce ?? false);
    c.attach = hub;
    child.stdout!.on('data', (d: Buffer) => {
      log.write('stdout', d);
      hub.write('stdout', d);
    });
    child.stderr!.on('data', (d: Buffer) => {
      log.write('stderr', d);
      hub.write('stderr', d);
    });
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (err) => reject(new RuntimeError('RunContainerError', err.message)));
    });
    c.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        void (async () => {
          // like a PID namespace ending with its init: whatever the command left behind dies with it
          signalGroup(child.pid!, 'SIGKILL');
          await this.killCgroup(c);
          await streamsClosed(child, 500);
          await log.close();
          const oom = (await c.cgroup?.oomKilled()) ?? false;
          c.status.state = 'Exited';
          c.status.finishedAt = new Date();
          c.status.exitCode = code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0);
          c.status.reason = oom ? 'OOMKilled' : c.status.exitCode === 0 ? 'Completed' : 'Error';
          c.status.pid = undefined;
          hub.end(c.status.exitCode);
          resolve();
          for (const l of this.listeners) l({ ...c.status });
        })();
      });
    });
    await spawned;
    c.status.state = 'Running';
    c.status.startedAt = new Date();
    c.status.pid = child.pid;
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    const c = this.get(id);
    if (c.status.state !== 'Running' || !c.child?.pid) return;
    const pgid = c.child.pid;
    signalGroup(pgid, timeoutSeconds > 0 ? 'SIGTERM' : 'SIGKILL');
    if (timeoutSeconds > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutSeconds * 1000)));
      const done = await Promise.race([c.exited!.then(() => false), timedOut]);
      clearTimeout(timer);
      if (done) signalGroup(pgid, 'SIGKILL');
    }
    await c.exited;
  }

  async removeContainer(id: string): Promise<void> {
    const c = this.containers.get(id);
    if (!c) return;
    if (c.status.state === 'Running') await this.stopContainer(id, 0);
    await c.cgroup?.remove();
    this.containers.delete(id);
  }

  async listContainers(filter: { sandboxId?: string } = {}): Promise<ContainerStatus[]> {
    return [...this.containers.values()]
      .filter((c) => !filter.sandboxId || c.status.sandboxId === filter.sandboxId)
      .map((c) => ({ ...c.status }));
  }

  async containerStatus(id: string): Promise<ContainerStatus> {
    return { ...this.get(id).status };
  }

  async execSync(id: string, argv: string[], timeoutMs: number): Promise<ExecResult> {
    const c = this.get(id);
    if (c.status.state !== 'Running' || !c.child?.pid) throw new RuntimeError('RunContainerError', `container ${c.config.name} is not running`);
    const full = this.isolate ? ['nsenter', '-t', String(c.child.pid), '-m', '-u', '--', ...argv] : argv;
    return new Promise((resolve, reject) => {
      const p = spawn(full[0], full.slice(1), { env: { PATH: DEFAULT_PATH, ...c.config.env }, cwd: this.isolate ? '/' : (c.config.workingDir ?? '/'), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
      p.once('error', (err) => {
        clearTimeout(timer);
        reject(new RuntimeError('RunContainerError', err.message));
      });
      p.once('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ exitCode: code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0), stdout, stderr });
      });
    });
  }

  async exec(id: string, argv: string[], opts: StreamOptions): Promise<ContainerStreams> {
    const c = this.get(id);
    if (c.status.state !== 'Running' || !c.child?.pid) throw new RuntimeError('RunContainerError', `container ${c.config.name} is not running`);
    if (argv.length === 0) throw new RuntimeError('RunContainerError', 'no command given to exec');
    if (!this.isolate && !resolveExecutable(argv[0], c.config.env.PATH ?? DEFAULT_PATH)) {
      throw new RuntimeError('RunContainerError', `exec: "${argv[0]}": executable file not found in $PATH`);
    }
    return spawnExec({ pid: c.child.pid, isolate: this.isolate, env: c.config.env, workingDir: c.config.workingDir }, argv, opts, DEFAULT_PATH);
  }

  async attach(id: string, opts: StreamOptions): Promise<ContainerStreams> {
    const c = this.get(id);
    if (c.status.state !== 'Running' || !c.attach) throw new RuntimeError('RunContainerError', `container ${c.config.name} is not running`);
    return c.attach.attach(opts);
  }

  async portForward(podSandboxId: string, port: number): Promise<NodeJS.ReadWriteStream & { destroy(): void }> {
    const sb = this.sandboxes.get(podSandboxId);
    if (!sb) throw new RuntimeError('NotFound', `pod sandbox ${podSandboxId} not found`);
    return dialPort('127.0.0.1', port);
  }

  /** Kills every container (for shutdown of tests; a real kubelet leaves pods running). */
  async close(): Promise<void> {
    await Promise.all([...this.sandboxes.keys()].map((id) => this.removePodSandbox(id)));
  }

  /** Processes that escaped the process group still belong to the cgroup. */
  private async killCgroup(c: ProcessContainer): Promise<void> {
    for (const pid of (await c.cgroup?.pids()) ?? []) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  private get(id: string): ProcessContainer {
    const c = this.containers.get(id);
    if (!c) throw new RuntimeError('NotFound', `container ${id} not found`);
    return c;
  }
}

function streamsClosed(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.stdout?.closed !== false && child.stderr?.closed !== false) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is already gone
  }
}

/** Resolves a command the way execvp does; undefined if it cannot run. */
export function resolveExecutable(cmd: string, path: string): string | undefined {
  const candidates = cmd.includes('/') ? [cmd] : path.split(delimiter).filter(Boolean).map((d) => join(d, cmd));
  for (const f of candidates) {
    if (!isAbsolute(f) && !cmd.includes('/')) continue;
    try {
      accessSync(f, fsConstants.X_OK);
      if (statSync(f).isFile()) return f;
    } catch {
      // try the next directory
    }
  }
  return undefined;
}
