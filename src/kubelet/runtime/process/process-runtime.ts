import { type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  RuntimeError,
  type ContainerConfig,
  type ContainerStats,
  type ContainerStatus,
  type ContainerStreams,
  type ExecResult,
  type PodSandboxConfig,
  type PodSandboxStatus,
  type Runtime,
  type RuntimeVersion,
  type StatsRuntime,
  type StreamOptions,
} from '../runtime.js';
import { dialPort } from '../dial-port.js';
import { ContainerCgroup } from './cgroup.js';
import { CriLogWriter } from './cri-log-writer.js';
import { containerScript } from './container-script.js';
import { readExitFile, shimFiles, spawnShim } from './container-shim.js';
import { FifoPool } from './fifo-pool.js';
import { DEFAULT_PATH, execSync, resolveExecutable, signalGroup } from './host-process.js';
import { OutputPump } from './output-pump.js';
import { processStartTime, sameProcessAlive } from './proc-stat.js';
import { usageByProcessGroup } from './process-usage.js';
import { AttachHub, onTerminal, resizeTerminal, spawnExec } from './process-streams.js';
import { RuntimeStateStore, type ContainerState, type SandboxState } from './runtime-state.js';

export interface ProcessRuntimeOptions {
  /** IP reported for pods (they share the host's network). */
  hostIP?: string;
  /** Use mount/UTS namespaces and cgroups (needs root); default: when running as root. */
  isolate?: boolean;
  /**
   * Where sandbox and container records, FIFOs and exit files live. A runtime
   * opened on the directory of an earlier one adopts its containers that still
   * run. Default: a fresh temporary directory, removed by `close()`.
   */
  stateDir?: string;
  /** How often containers that are not this process's children (adopted ones) are checked for exit; default 500 ms. */
  adoptedPollMs?: number;
}

interface ProcessContainer extends ContainerState {
  shim?: ChildProcess;
  cgroup?: ContainerCgroup;
  exited?: Promise<void>;
  attach?: AttachHub;
  output?: OutputPump;
  poll?: NodeJS.Timeout;
}

const SETSID = resolveExecutable('setsid', DEFAULT_PATH) ?? 'setsid';
const UNSHARE = resolveExecutable('unshare', DEFAULT_PATH) ?? 'unshare';

/**
 * Runs each container as a host process from the host's filesystem (no
 * images yet). As root each container gets private mount and UTS namespaces,
 * so volumes appear at their mountPath and the hostname is the pod's, and a
 * cgroup carrying its memory and CPU limits so that an OOM kill is reported.
 * Each container leads its own session and process group, which stop
 * signals reach as a whole, under a shim that outlives the kubelet (see
 * container-shim.ts); records in `stateDir` let a restarted kubelet adopt
 * running containers instead of restarting them.
 */
export class ProcessRuntime implements Runtime, StatsRuntime {
  private readonly sandboxes = new Map<string, SandboxState>();
  private readonly containers = new Map<string, ProcessContainer>();
  private readonly listeners: ((s: ContainerStatus) => void)[] = [];
  private readonly store: RuntimeStateStore;
  private readonly fifos: FifoPool;
  private closed = false;
  readonly isolate: boolean;

  constructor(private readonly options: ProcessRuntimeOptions = {}) {
    this.isolate = options.isolate ?? process.getuid?.() === 0;
    this.store = new RuntimeStateStore(options.stateDir ?? mkdtempSync(join(tmpdir(), 'skiff-runtime-')));
    this.fifos = new FifoPool(join(this.store.dir, 'fifos'));
    this.restore();
  }

  version(): RuntimeVersion {
    return { runtimeName: 'skiff-process', runtimeVersion: '0.2.0' };
  }

  onContainerEvent(listener: (status: ContainerStatus) => void): void {
    this.listeners.push(listener);
  }

  async runPodSandbox(config: PodSandboxConfig): Promise<PodSandboxStatus> {
    this.checkOpen();
    mkdirSync(config.logDirectory, { recursive: true });
    const status: PodSandboxStatus = { id: randomUUID(), podUid: config.uid, state: 'Ready', ip: this.options.hostIP, createdAt: new Date() };
    const sb = { status, config };
    this.sandboxes.set(status.id, sb);
    this.store.saveSandbox(sb);
    return { ...status };
  }

  async stopPodSandbox(id: string): Promise<void> {
    const sb = this.sandboxes.get(id);
    if (!sb) return;
    await Promise.all([...this.containers.values()].filter((c) => c.status.sandboxId === id).map((c) => this.stopContainer(c.status.id, 0)));
    sb.status.state = 'NotReady';
    this.store.saveSandbox(sb);
  }

  async removePodSandbox(id: string): Promise<void> {
    await this.stopPodSandbox(id);
    for (const c of [...this.containers.values()]) if (c.status.sandboxId === id) await this.removeContainer(c.status.id);
    this.sandboxes.delete(id);
    this.store.removeSandbox(id);
  }

  async listPodSandboxes(): Promise<PodSandboxStatus[]> {
    return [...this.sandboxes.values()].map((s) => ({ ...s.status }));
  }

  async createContainer(sandboxId: string, config: ContainerConfig): Promise<string> {
    this.checkOpen();
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
    const c: ProcessContainer = {
      config,
      podUid: sb.config.uid,
      status: {
        id, sandboxId, name: config.name, attempt: config.attempt, image: config.image, state: 'Created',
        createdAt: new Date(), logPath: config.logPath, labels: { ...config.labels },
      },
    };
    this.containers.set(id, c);
    this.save(c);
    return id;
  }

  async startContainer(id: string): Promise<void> {
    this.checkOpen();
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
    // a tty container runs on a terminal of its own, as runc gives it one
    const inner = ['/bin/sh', '-c', script, 'skiff-container', ...(c.config.tty ? onTerminal(c.config.argv) : c.config.argv)];
    // a mount namespace costs a copy of the host's mount table: only containers with volumes need one
    const namespaces = c.config.mounts.length > 0 ? ['--mount', '--uts', '--propagation', 'private'] : ['--uts'];
    const argv = this.isolate ? [UNSHARE, ...namespaces, '--', ...inner] : inner;
    const dir = this.store.containerDir(id);
    const files = shimFiles(dir);
    try {
      await this.fifos.take([files.stdout, files.stderr]);
    } catch (err) {
      throw new RuntimeError('RunContainerError', `cannot create the output FIFOs of container ${c.config.name}: ${(err as Error).message}`);
    }
    // the read ends are open before the container can write, so no early output is lost
    c.output = new OutputPump(files, new CriLogWriter(c.config.logPath), (s, d) => c.attach?.write(s, d));
    const env = { PATH: DEFAULT_PATH, ...(c.config.tty ? { TERM: 'xterm' } : {}), ...c.config.env };
    const started = spawnShim({ dir, argv, env, stdin: c.config.stdin ?? false, setsid: SETSID });
    c.shim = started.shim;
    // sizes apply in the order they came (kubectl sends one larger first, then the real one)
    let resizing = Promise.resolve();
    const resize = (width: number, height: number) => {
      resizing = resizing.then(() => resizeTerminal(c.status.pid, width, height, () => c.status.state === 'Running'));
    };
    c.attach = new AttachHub(started.shim.stdin ?? undefined, c.config.stdinOnce ?? false, c.config.tty ? resize : undefined);
    c.exited = new Promise<void>((resolve) => {
      started.shim.once('exit', () => void this.finishSafely(c, readExitFile(files.exit)).then(resolve));
    });
    let pid: number | undefined;
    try {
      pid = await started.pid;
    } catch (err) {
      throw new RuntimeError('RunContainerError', (err as Error).message);
    }
    // a container whose setup failed may already be recorded as exited
    if (this.get(id).status.state === 'Exited') return;
    c.shimPid = started.shim.pid;
    c.shimStartTime = c.shimPid ? processStartTime(c.shimPid) : undefined;
    c.status.state = 'Running';
    c.status.startedAt = new Date();
    c.status.pid = pid;
    c.startTime = pid ? processStartTime(pid) : undefined;
    this.save(c);
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    const c = this.get(id);
    if (c.status.state !== 'Running' || !c.status.pid) return;
    const pgid = c.status.pid;
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
    this.store.removeContainer(id);
  }

  async listContainers(filter: { sandboxId?: string } = {}): Promise<ContainerStatus[]> {
    return [...this.containers.values()]
      .filter((c) => !filter.sandboxId || c.status.sandboxId === filter.sandboxId)
      .map((c) => ({ ...c.status }));
  }

  async containerStatus(id: string): Promise<ContainerStatus> {
    return { ...this.get(id).status };
  }

  /** CPU from /proc per process group; memory from the container's cgroup (working set) when it has one, else resident sizes. */
  async listContainerStats(): Promise<ContainerStats[]> {
    const running = [...this.containers.values()].filter((c) => c.status.state === 'Running' && c.status.pid);
    const usage = await usageByProcessGroup(new Set(running.map((c) => c.status.pid!)));
    const timestamp = new Date();
    return Promise.all(running.map(async (c) => {
      const u = usage.get(c.status.pid!);
      const workingSet = (await c.cgroup?.memoryWorkingSet()) ?? u?.rssBytes;
      return {
        id: c.status.id, name: c.status.name, podUid: c.podUid, timestamp,
        ...(u ? { usageCoreNanoSeconds: u.cpuNanoSeconds, rssBytes: u.rssBytes } : {}),
        ...(workingSet !== undefined ? { workingSetBytes: workingSet } : {}),
      };
    }));
  }

  async execSync(id: string, argv: string[], timeoutMs: number): Promise<ExecResult> {
    const c = this.running(id);
    const full = this.isolate ? ['nsenter', '-t', String(c.status.pid), '-m', '-u', '--', ...argv] : argv;
    return execSync(full, { env: { PATH: DEFAULT_PATH, ...c.config.env }, cwd: this.isolate ? '/' : (c.config.workingDir ?? '/'), timeoutMs });
  }

  async exec(id: string, argv: string[], opts: StreamOptions): Promise<ContainerStreams> {
    const c = this.running(id);
    if (argv.length === 0) throw new RuntimeError('RunContainerError', 'no command given to exec');
    if (!this.isolate && !resolveExecutable(argv[0], c.config.env.PATH ?? DEFAULT_PATH)) {
      throw new RuntimeError('RunContainerError', `exec: "${argv[0]}": executable file not found in $PATH`);
    }
    return spawnExec({ pid: c.status.pid!, isolate: this.isolate, env: c.config.env, workingDir: c.config.workingDir }, argv, opts, DEFAULT_PATH);
  }

  async attach(id: string, opts: StreamOptions): Promise<ContainerStreams> {
    const c = this.running(id);
    if (!c.attach) throw new RuntimeError('RunContainerError', `container ${c.config.name} is not running`);
    return c.attach.attach(opts);
  }

  /** CRI's ReopenContainerLog: the kubelet renamed the log file to rotate it. */
  async reopenContainerLog(id: string): Promise<void> {
    const c = this.running(id);
    await c.output?.reopenLog();
  }

  async portForward(podSandboxId: string, port: number): Promise<NodeJS.ReadWriteStream & { destroy(): void }> {
    const sb = this.sandboxes.get(podSandboxId);
    if (!sb) throw new RuntimeError('NotFound', `pod sandbox ${podSandboxId} not found`);
    return dialPort('127.0.0.1', port);
  }

  /**
   * Stops and forgets every container, as a node going down would (`skiff
   * server` on a graceful stop). A temporary state directory is removed.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.sandboxes.keys()].map((id) => this.removePodSandbox(id)));
    if (!this.options.stateDir) rmSync(this.store.dir, { recursive: true, force: true });
  }

  /**
   * Lets go of every container without stopping it, as upstream's kubelet
   * does on shutdown: the shims keep them running and record their exits, and
   * a runtime opened later on the same state directory adopts them.
   */
  async detach(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.containers.values()].map(async (c) => {
      clearInterval(c.poll);
      c.shim?.removeAllListeners('exit');
      c.shim?.stdin?.destroy();
      c.shim?.unref();
      await c.output?.detach();
    }));
  }

  /** Reloads the records of an earlier runtime and adopts the containers still running. */
  private restore(): void {
    const { sandboxes, containers } = this.store.load();
    for (const s of sandboxes) this.sandboxes.set(s.status.id, s);
    for (const state of containers) {
      if (!this.sandboxes.has(state.status.sandboxId)) {
        this.store.removeContainer(state.status.id);
        continue;
      }
      const c: ProcessContainer = { ...state };
      this.containers.set(c.status.id, c);
      if (c.status.state === 'Created' && sameProcessAlive(c.shimPid, c.shimStartTime)) {
        // started, but the kubelet died before learning the pid: the shim's child is the container
        const child = Number(readFileSync(`/proc/${c.shimPid}/task/${c.shimPid}/children`, 'utf8').trim().split(/\s+/)[0]);
        if (child) signalGroup(child, 'SIGKILL');
      }
      if (c.status.state === 'Running' || c.status.state === 'Created') this.adopt(c);
    }
  }

  private adopt(c: ProcessContainer): void {
    const files = shimFiles(this.store.containerDir(c.status.id));
    if (this.isolate) c.cgroup = ContainerCgroup.open(c.podUid, c.status.id);
    if (c.status.state !== 'Running' || !sameProcessAlive(c.status.pid, c.startTime)) {
      // the recorded pid may belong to someone else by now: never signal it
      c.status.pid = undefined;
      c.exited = this.finish(c, readExitFile(files.exit));
      return;
    }
    c.attach = new AttachHub(undefined, false);
    try {
      c.output = new OutputPump(files, new CriLogWriter(c.config.logPath), (s, d) => c.attach?.write(s, d));
    } catch {
      // FIFOs gone: the container runs on, unlogged
    }
    // not our child: no exit event, so watch for the shim's exit file (or for both processes vanishing)
    c.exited = new Promise<void>((resolve) => {
      c.poll = setInterval(() => {
        const exit = readExitFile(files.exit);
        if (!exit && (sameProcessAlive(c.shimPid, c.shimStartTime) || sameProcessAlive(c.status.pid, c.startTime))) return;
        clearInterval(c.poll);
        void this.finishSafely(c, exit).then(resolve);
      }, this.options.adoptedPollMs ?? 500);
      c.poll.unref();
    });
  }

  /** finish() for an exit nobody awaits: a failure (e.g. a full disk while recording the exit) is reported, never unhandled. */
  private finishSafely(c: ProcessContainer, exit: { exitCode: number; finishedAt: Date } | undefined): Promise<void> {
    return this.finish(c, exit).catch((err: unknown) => {
      process.emitWarning(`cleaning up after container ${c.config.name} failed: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  /** The container ended (or was found ended): clean up after it and record how it ended. */
  private async finish(c: ProcessContainer, exit: { exitCode: number; finishedAt: Date } | undefined): Promise<void> {
    // like a PID namespace ending with its init: whatever the command left behind dies with it
    if (c.status.pid) signalGroup(c.status.pid, 'SIGKILL');
    await this.killCgroup(c);
    await c.output?.drain(500);
    const oom = (await c.cgroup?.oomKilled()) ?? false;
    c.status.state = 'Exited';
    c.status.startedAt ??= c.status.createdAt;
    c.status.finishedAt = exit?.finishedAt ?? new Date();
    // upstream's kubelet reports a container whose end nobody saw as exit 137, ContainerStatusUnknown
    c.status.exitCode = exit?.exitCode ?? 137;
    c.status.reason = oom ? 'OOMKilled' : !exit ? 'ContainerStatusUnknown' : c.status.exitCode === 0 ? 'Completed' : 'Error';
    if (!exit) c.status.message = 'The container exited while its shim was gone; its exit status is unknown';
    c.status.pid = undefined;
    try {
      if (this.containers.has(c.status.id)) this.save(c);
    } catch (err) {
      // the exit is still reported below; after a restart the container shows as ContainerStatusUnknown
      process.emitWarning(`cannot record the exit of container ${c.config.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
    c.attach?.end(c.status.exitCode);
    for (const l of this.listeners) l({ ...c.status });
  }

  private save(c: ProcessContainer): void {
    this.store.saveContainer({ status: c.status, config: c.config, podUid: c.podUid, shimPid: c.shimPid, shimStartTime: c.shimStartTime, startTime: c.startTime });
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

  private checkOpen(): void {
    // a stopping kubelet's pod workers may still react to exits; nothing new may start
    if (this.closed) throw new RuntimeError('RunContainerError', 'the runtime is shutting down');
  }

  private get(id: string): ProcessContainer {
    const c = this.containers.get(id);
    if (!c) throw new RuntimeError('NotFound', `container ${id} not found`);
    return c;
  }

  private running(id: string): ProcessContainer {
    const c = this.get(id);
    if (c.status.state !== 'Running' || !c.status.pid) throw new RuntimeError('RunContainerError', `container ${c.config.name} is not running`);
    return c;
  }
}
