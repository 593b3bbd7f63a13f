import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import {
  RuntimeError,
  type ContainerConfig,
  type ContainerStreams,
  type ContainerStatus,
  type ExecResult,
  type PodSandboxConfig,
  type PodSandboxStatus,
  type Runtime,
  type RuntimeVersion,
  type StreamOptions,
} from '../runtime.js';
import { dialPort } from '../dial-port.js';
import { realClock, type Clock } from '../../../base/clock.js';

interface FakeContainer {
  status: ContainerStatus;
  config: ContainerConfig;
  /** Attached sessions, ended when the container exits. */
  attached: Set<() => void>;
}

/**
 * An in-memory runtime for tests and simulated nodes. Containers "run" until
 * stopped or until a test calls `exit()`; argv `['false']` exits 1 at once and
 * `['true']` exits 0, which is enough to drive restart logic.
 */
export class FakeRuntime implements Runtime {
  private readonly sandboxes = new Map<string, PodSandboxStatus>();
  private readonly containers = new Map<string, FakeContainer>();
  private readonly listeners: ((s: ContainerStatus) => void)[] = [];

  /** `clock` stamps sandbox and container times (default: the real clock). */
  constructor(private readonly clock: Clock = realClock) {}

  /** Every call, in order, for assertions. */
  readonly calls: string[] = [];
  /** Scripted exec results by first argv element. */
  execResults = new Map<string, ExecResult>();

  version(): RuntimeVersion {
    return { runtimeName: 'fake', runtimeVersion: '0.1.0' };
  }

  onContainerEvent(listener: (status: ContainerStatus) => void): void {
    this.listeners.push(listener);
  }

  async runPodSandbox(config: PodSandboxConfig): Promise<PodSandboxStatus> {
    this.calls.push(`runPodSandbox ${config.namespace}/${config.name}`);
    const s: PodSandboxStatus = { id: randomUUID(), podUid: config.uid, state: 'Ready', ip: '10.88.0.2', createdAt: new Date(this.clock.now()) };
    this.sandboxes.set(s.id, s);
    return { ...s };
  }

  async stopPodSandbox(id: string): Promise<void> {
    this.calls.push(`stopPodSandbox ${id}`);
    const s = this.sandboxes.get(id);
    if (!s) return;
    s.state = 'NotReady';
    for (const c of this.containers.values()) if (c.status.sandboxId === id) this.finish(c, 137, 'Error');
  }

  async removePodSandbox(id: string): Promise<void> {
    this.calls.push(`removePodSandbox ${id}`);
    this.sandboxes.delete(id);
    for (const [cid, c] of this.containers) if (c.status.sandboxId === id) this.containers.delete(cid);
  }

  async listPodSandboxes(): Promise<PodSandboxStatus[]> {
    return [...this.sandboxes.values()].map((s) => ({ ...s }));
  }

  async createContainer(sandboxId: string, config: ContainerConfig): Promise<string> {
    this.calls.push(`createContainer ${config.name}`);
    if (!this.sandboxes.has(sandboxId)) throw new RuntimeError('NotFound', `sandbox ${sandboxId} not found`);
    if (config.argv.length === 0) throw new RuntimeError('CreateContainerError', 'no command given');
    const id = randomUUID();
    this.containers.set(id, {
      config,
      status: {
        id, sandboxId, name: config.name, attempt: config.attempt, image: config.image, state: 'Created',
        createdAt: new Date(this.clock.now()), logPath: config.logPath, labels: { ...config.labels },
      },
      attached: new Set(),
    });
    return id;
  }

  async startContainer(id: string): Promise<void> {
    this.calls.push(`startContainer ${id}`);
    const c = this.get(id);
    c.status.state = 'Running';
    c.status.startedAt = new Date(this.clock.now());
    const cmd = c.config.argv[0];
    if (cmd === 'true' || cmd === 'false') {
      const code = cmd === 'true' ? 0 : 1;
      setImmediate(() => this.finish(c, code, code === 0 ? 'Completed' : 'Error'));
    }
  }

  async stopContainer(id: string, _timeoutSeconds: number): Promise<void> {
    this.calls.push(`stopContainer ${id}`);
    const c = this.get(id);
    if (c.status.state === 'Running') this.finish(c, 143, 'Error');
  }

  async removeContainer(id: string): Promise<void> {
    this.calls.push(`removeContainer ${id}`);
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

  async execSync(id: string, argv: string[], _timeoutMs: number): Promise<ExecResult> {
    const c = this.get(id);
    if (c.status.state !== 'Running') throw new RuntimeError('RunContainerError', `container ${id} is not running`);
    return this.execResults.get(argv[0]) ?? { exitCode: argv[0] === 'false' ? 1 : 0, stdout: '', stderr: '' };
  }

  /** `cat` echoes stdin to stdout until stdin ends; anything else answers from `execResults`. */
  async exec(id: string, argv: string[], opts: StreamOptions): Promise<ContainerStreams> {
    const c = this.get(id);
    if (c.status.state !== 'Running') throw new RuntimeError('RunContainerError', `container ${id} is not running`);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let done: Promise<{ exitCode: number }>;
    if (argv[0] === 'cat') {
      stdin.pipe(stdout);
      stderr.end();
      done = new Promise((resolve) => stdout.once('end', () => resolve({ exitCode: 0 })));
    } else {
      const r = this.execResults.get(argv[0]) ?? { exitCode: argv[0] === 'false' ? 1 : 0, stdout: '', stderr: '' };
      stdin.resume();
      stdout.end(r.stdout);
      stderr.end(opts.tty ? '' : r.stderr);
      done = Promise.resolve({ exitCode: r.exitCode });
    }
    return { stdin: opts.stdin ? stdin : undefined, stdout, stderr: opts.tty ? undefined : stderr, done, resize: () => undefined, close: () => stdin.end() };
  }

  /** Attached output stays silent; the session ends when the container exits or the caller closes it. */
  async attach(id: string, opts: StreamOptions): Promise<ContainerStreams> {
    const c = this.get(id);
    if (c.status.state !== 'Running') throw new RuntimeError('RunContainerError', `container ${id} is not running`);
    const stdout = new PassThrough();
    let end!: () => void;
    const done = new Promise<{ exitCode: number }>((resolve) => {
      end = () => {
        c.attached.delete(end);
        stdout.end();
        resolve({ exitCode: c.status.exitCode ?? 0 });
      };
    });
    c.attached.add(end);
    return { stdin: opts.stdin ? new PassThrough().resume() : undefined, stdout, done, resize: () => undefined, close: end };
  }

  async portForward(podSandboxId: string, port: number): Promise<NodeJS.ReadWriteStream & { destroy(): void }> {
    const sb = this.sandboxes.get(podSandboxId);
    if (!sb) throw new RuntimeError('NotFound', `pod sandbox ${podSandboxId} not found`);
    return dialPort('127.0.0.1', port);
  }

  /** Test hook: the container's process ends with `exitCode`. */
  exit(id: string, exitCode: number, reason?: string): void {
    this.finish(this.get(id), exitCode, reason ?? (exitCode === 0 ? 'Completed' : 'Error'));
  }

  private finish(c: FakeContainer, exitCode: number, reason: string): void {
    if (c.status.state === 'Exited') return;
    c.status.state = 'Exited';
    c.status.exitCode = exitCode;
    c.status.reason = reason;
    c.status.finishedAt = new Date(this.clock.now());
    for (const end of [...c.attached]) end();
    for (const l of this.listeners) l({ ...c.status });
  }

  private get(id: string): FakeContainer {
    const c = this.containers.get(id);
    if (!c) throw new RuntimeError('NotFound', `container ${id} not found`);
    return c;
  }
}
