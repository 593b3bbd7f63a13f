import { existsSync, mkdirSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { dialPort } from '../dial-port.js';
import {
  ImagePullError, RuntimeError, type ContainerConfig, type ContainerState, type ContainerStatus, type ContainerStreams, type ExecResult,
  type ImageInfo, type ImageService, type PodSandboxConfig, type PodSandboxStatus, type RegistryAuth, type Runtime, type RuntimeVersion,
  type StreamOptions, type StreamUrlRuntime, type ContainerStats, type StatsRuntime, type PodSandboxFilter,
} from '../runtime.js';
import { CriClient, CriError, type CriMessage } from './cri-client.js';
import { criContainerSecurity, criSandboxLinux, PROTOCOLS } from './cri-security.js';
import { dialInNetns } from './netns-dial.js';

const SANDBOX_READY = 0;
const CONTAINER_STATES: ContainerState[] = ['Created', 'Running', 'Exited', 'Unknown'];
/** Where the kubelet remembers a container's sandbox (ContainerStatus does not carry it). */
const SANDBOX_ANNOTATION = 'skiff.io/pod-sandbox-id';

interface CriSandbox { id: string; metadata?: { name: string; uid: string; namespace: string }; state: number; createdAt: number; labels: Record<string, string> }
interface CriContainerStatus {
  id: string; metadata?: { name: string; attempt: number }; state: number; createdAt: number; startedAt: number; finishedAt: number;
  exitCode: number; image?: { image: string }; imageRef: string; reason: string; message: string; labels: Record<string, string>;
  annotations: Record<string, string>; logPath: string;
}

type CriValue = { value: number } | null;
interface CriContainerStats {
  attributes?: { id: string; metadata?: { name: string }; labels: Record<string, string> } | null;
  cpu?: { timestamp: number; usageCoreNanoSeconds: CriValue; usageNanoCores: CriValue } | null;
  memory?: { timestamp: number; workingSetBytes: CriValue; usageBytes: CriValue; rssBytes: CriValue } | null;
}

/** What containerd's verbose PodSandboxStatus tells in `info.info`: the pause pid and the runtime spec. */
interface SandboxInfo { pid?: unknown; runtimeSpec?: { linux?: { namespaces?: { type: string; path?: string }[] } } }

interface CriImage { id: string; repoTags: string[]; repoDigests: string[]; size: number; uid?: { value: number } | null; username: string; pinned?: boolean }

/** gRPC status names, for pull errors worded as upstream's kubelet shows them (`rpc error: code = NotFound desc = …`). */
const GRPC_CODES = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied',
  'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'];

function toImage(i: CriImage): ImageInfo {
  return {
    id: i.id, repoTags: i.repoTags, repoDigests: i.repoDigests, sizeBytes: Number(i.size),
    ...(i.uid ? { uid: Number(i.uid.value) } : {}), ...(i.username ? { username: i.username } : {}), ...(i.pinned ? { pinned: true } : {}),
  };
}

const fromNanos = (ns: number): Date | undefined => (ns > 0 ? new Date(Math.floor(ns / 1e6)) : undefined);

export interface CriRuntimeOptions {
  /** How often container states are polled to announce changes (CRI 1.6 runtimes have no event stream). */
  pollIntervalMs?: number;
}

/**
 * The kubelet's Runtime over CRI (containerd, CRI-O): sandboxes and
 * containers are the runtime's, the kubelet only asks. Container state
 * changes are found by polling ListContainers, which is one cheap call.
 */
export class CriRuntime implements Runtime, StreamUrlRuntime, ImageService, StatsRuntime {
  private readonly listeners: ((s: ContainerStatus) => void)[] = [];
  private readonly sandboxIPs = new Map<string, string>();
  private readonly sandboxPids = new Map<string, number>();
  /** Each sandbox's network namespace path ('' for the host's), once asked (heldNetnsPaths). */
  private readonly sandboxNetns = new Map<string, string>();
  /**
   * The PLEG's cache (upstream's pod cache): each container's status as last
   * read, with the CRI state it had. Once a relist has seen the container
   * still in that state the entry is served instead of asking again; a
   * relist that finds the state changed drops it (and announces the change),
   * and so does every call of ours that changes the container.
   */
  private readonly statusCache = new Map<string, { status: ContainerStatus; state: number; confirmed: boolean }>();
  /** Start times (ms since the epoch) of the RunPodSandbox calls in flight. */
  private readonly creating = new Set<{ at: number }>();
  private readonly poller = new AbortController();
  private polling?: Promise<void>;

  private constructor(
    private readonly client: CriClient,
    private readonly versionInfo: RuntimeVersion,
    private readonly opts: CriRuntimeOptions,
  ) {}

  /** Connects and asks the runtime its name and version (kept for the node status and container IDs). */
  static async connect(endpoint: string, opts: CriRuntimeOptions = {}): Promise<CriRuntime> {
    const client = new CriClient(endpoint);
    try {
      const v = await client.runtime('Version', { version: 'v1' }, 10_000);
      return new CriRuntime(client, { runtimeName: String(v.runtimeName), runtimeVersion: String(v.runtimeVersion) }, opts);
    } catch (err) {
      client.close();
      throw err;
    }
  }

  get cri(): CriClient {
    return this.client;
  }

  version(): RuntimeVersion {
    return this.versionInfo;
  }

  onContainerEvent(listener: (status: ContainerStatus) => void): void {
    this.listeners.push(listener);
    this.polling ??= this.poll(this.poller.signal);
  }

  async close(): Promise<void> {
    this.poller.abort();
    await this.polling;
    this.client.close();
  }

  async runPodSandbox(config: PodSandboxConfig): Promise<PodSandboxStatus> {
    mkdirSync(config.logDirectory, { recursive: true });
    const call = { at: Date.now() };
    this.creating.add(call);
    let res: CriMessage;
    try {
      res = await this.translate('CreatePodSandboxError', this.client.runtime('RunPodSandbox', { config: this.sandboxConfig(config) }, 4 * 60_000));
    } finally {
      this.creating.delete(call);
    }
    const id = String(res.podSandboxId);
    const status = await this.sandboxStatus(id);
    if (!status) throw new RuntimeError('CreatePodSandboxError', `pod sandbox ${id} vanished after creation`);
    return status;
  }

  /** When the oldest RunPodSandbox still in flight started (ms since the epoch): its network is set up before the sandbox is listed. */
  sandboxCreationsSince(): number | undefined {
    let oldest: number | undefined;
    for (const c of this.creating) oldest = Math.min(oldest ?? c.at, c.at);
    return oldest;
  }

  private sandboxConfig(config: PodSandboxConfig): object {
    return {
      metadata: { name: config.name, uid: config.uid, namespace: config.namespace, attempt: 0 },
      hostname: config.hostname,
      logDirectory: config.logDirectory,
      ...(config.dnsConfig ? { dnsConfig: config.dnsConfig } : {}),
      portMappings: (config.portMappings ?? []).map((p) => ({ protocol: PROTOCOLS[p.protocol], containerPort: p.containerPort, hostPort: p.hostPort, hostIp: p.hostIP ?? '' })),
      labels: { ...config.labels, 'io.kubernetes.pod.uid': config.uid, 'io.kubernetes.pod.name': config.name, 'io.kubernetes.pod.namespace': config.namespace },
      linux: criSandboxLinux(config.linux),
    };
  }

  private async sandboxStatus(id: string): Promise<PodSandboxStatus | undefined> {
    try {
      const res = await this.client.runtime('PodSandboxStatus', { podSandboxId: id });
      const s = res.status as CriSandbox & { network?: { ip: string } };
      const ip = s.network?.ip || undefined;
      if (ip) this.sandboxIPs.set(id, ip);
      return this.toSandbox(s);
    } catch (err) {
      if (err instanceof CriError && err.notFound) return undefined;
      throw err;
    }
  }

  private toSandbox(s: CriSandbox): PodSandboxStatus {
    return {
      id: s.id, podUid: s.metadata?.uid ?? s.labels['io.kubernetes.pod.uid'] ?? '', state: s.state === SANDBOX_READY ? 'Ready' : 'NotReady',
      ip: this.sandboxIPs.get(s.id), createdAt: fromNanos(s.createdAt) ?? new Date(0),
    };
  }

  async stopPodSandbox(id: string): Promise<void> {
    this.forgetSandbox(id);
    await this.ignoreNotFound(this.client.runtime('StopPodSandbox', { podSandboxId: id }));
    this.forgetSandbox(id);
  }

  /** Drops the cached statuses of a sandbox's containers (it is being stopped or removed). */
  private forgetSandbox(id: string): void {
    for (const [cid, e] of this.statusCache) if (e.status.sandboxId === id) this.statusCache.delete(cid);
  }

  async removePodSandbox(id: string): Promise<void> {
    await this.stopPodSandbox(id);
    await this.ignoreNotFound(this.client.runtime('RemovePodSandbox', { podSandboxId: id }));
    this.sandboxIPs.delete(id);
    this.sandboxPids.delete(id);
    this.sandboxNetns.delete(id);
  }

  async listPodSandboxes(filter: PodSandboxFilter = {}): Promise<PodSandboxStatus[]> {
    const res = await this.client.runtime('ListPodSandbox', {
      filter: { id: filter.id ?? '', labelSelector: filter.podUid ? { 'io.kubernetes.pod.uid': filter.podUid } : {} },
    });
    const items = res.items as CriSandbox[];
    // the IP is only in the sandbox's status: ask once per ready sandbox this kubelet has not seen yet
    await Promise.all(items.filter((s) => s.state === SANDBOX_READY && !this.sandboxIPs.has(s.id)).map((s) => this.sandboxStatus(s.id)));
    return items.map((s) => this.toSandbox(s));
  }

  async createContainer(sandboxId: string, config: ContainerConfig, sandboxConfig?: PodSandboxConfig): Promise<string> {
    if (!config.image) throw new RuntimeError('CreateContainerError', `container ${config.name} has no image`);
    // the kubelet passes the sandbox's config; only without it is the sandbox looked up for its metadata
    let sandbox = sandboxConfig;
    if (!sandbox) {
      const found = ((await this.client.runtime('ListPodSandbox', { filter: { id: sandboxId } })).items as CriSandbox[])[0];
      if (!found) throw new RuntimeError('CreateContainerError', `pod sandbox ${sandboxId} not found`);
      const meta = found.metadata!;
      sandbox = { uid: meta.uid, name: meta.name, namespace: meta.namespace, hostname: '', logDirectory: '' };
    }
    mkdirSync(dirname(config.logPath), { recursive: true });
    // upstream's MilliCPUToShares: 1024 per CPU requested, at least 2 (BestEffort)
    const limits: Record<string, number> = { cpuShares: Math.max(2, Math.floor(((config.cpuRequestMillis ?? 0) * 1024) / 1000)) };
    if (config.memoryLimit) limits.memoryLimitInBytes = config.memoryLimit;
    if (config.cpuLimitMillis) Object.assign(limits, { cpuPeriod: 100_000, cpuQuota: config.cpuLimitMillis * 100 });
    const res = await this.translate('CreateContainerError', this.client.runtime('CreateContainer', {
      podSandboxId: sandboxId,
      config: {
        metadata: { name: config.name, attempt: config.attempt },
        image: { image: config.image },
        // the runtime fills in the image's entrypoint and cmd where the container leaves them out, as upstream
        ...(config.command || config.args ? { command: config.command ?? [], args: config.args ?? [] } : { command: config.argv }),
        workingDir: config.workingDir ?? '',
        envs: Object.entries(config.env).map(([key, value]) => ({ key, value })),
        mounts: config.mounts.map((m) => ({ containerPath: m.containerPath, hostPath: m.hostPath, readonly: m.readOnly ?? false })),
        labels: { ...config.labels, 'io.kubernetes.container.name': config.name },
        annotations: { [SANDBOX_ANNOTATION]: sandboxId },
        logPath: basename(config.logPath),
        stdin: config.stdin ?? false,
        stdinOnce: config.stdinOnce ?? false,
        tty: config.tty ?? false,
        linux: {
          resources: limits,
          securityContext: {
            ...criContainerSecurity(config.security),
            ...(config.runAsUser !== undefined ? { runAsUser: { value: config.runAsUser } } : {}),
            ...(config.runAsGroup !== undefined ? { runAsGroup: { value: config.runAsGroup } } : {}),
          },
        },
      },
      // the runtime joins the log directory from this config with the container's logPath
      sandboxConfig: this.sandboxConfig({ ...sandbox, logDirectory: dirname(config.logPath) }),
    }));
    return String(res.containerId);
  }

  async imageStatus(image: string): Promise<ImageInfo | undefined> {
    const res = await this.client.image('ImageStatus', { image: { image } });
    const found = res.image as CriImage | null | undefined;
    return found?.id ? toImage(found) : undefined;
  }

  async pullImage(image: string, auth?: RegistryAuth): Promise<string> {
    try {
      const res = await this.client.image('PullImage', { image: { image }, ...(auth ? { auth } : {}) });
      return String(res.imageRef);
    } catch (err) {
      if (err instanceof CriError) throw new ImagePullError(`rpc error: code = ${GRPC_CODES[err.code] ?? err.code} desc = ${err.details}`);
      throw err;
    }
  }

  /** CRI RemoveImage (by id or reference); an image already gone is fine. */
  async removeImage(image: string): Promise<void> {
    await this.ignoreNotFound(this.client.image('RemoveImage', { image: { image } }, 5 * 60_000));
  }

  /** CRI ImageFsInfo: where the runtime keeps image layers and how many bytes they use. */
  async imageFsInfo(): Promise<{ mountpoint: string; usedBytes: number }[]> {
    const res = await this.client.image('ImageFsInfo', {}, 60_000);
    return (res.imageFilesystems as { fsId?: { mountpoint: string }; usedBytes?: { value: number } }[])
      .map((f) => ({ mountpoint: f.fsId?.mountpoint ?? '', usedBytes: Number(f.usedBytes?.value ?? 0) }));
  }

  /** Size and free bytes of the filesystem holding the runtime's image layers (statfs of ImageFsInfo's mountpoint). */
  async imageFsStats(): Promise<{ capacityBytes: number; availableBytes: number }> {
    const mount = (await this.imageFsInfo())[0]?.mountpoint;
    if (!mount) return { capacityBytes: 0, availableBytes: 0 };
    const st = await statfs(mount);
    return { capacityBytes: st.blocks * st.bsize, availableBytes: st.bavail * st.bsize };
  }

  async listImages(): Promise<ImageInfo[]> {
    const res = await this.client.image('ListImages', {}, 60_000);
    return (res.images as CriImage[]).map(toImage);
  }

  async startContainer(id: string): Promise<void> {
    this.statusCache.delete(id);
    try {
      await this.translate('RunContainerError', this.client.runtime('StartContainer', { containerId: id }));
    } finally {
      this.statusCache.delete(id);
    }
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    this.statusCache.delete(id);
    try {
      await this.ignoreNotFound(this.client.runtime('StopContainer', { containerId: id, timeout: timeoutSeconds }, (timeoutSeconds + 60) * 1000));
    } finally {
      this.statusCache.delete(id);
    }
  }

  async removeContainer(id: string): Promise<void> {
    this.statusCache.delete(id);
    try {
      await this.ignoreNotFound(this.client.runtime('RemoveContainer', { containerId: id }));
    } finally {
      this.statusCache.delete(id);
    }
  }

  async listContainers(filter?: { sandboxId?: string }): Promise<ContainerStatus[]> {
    const res = await this.client.runtime('ListContainers', { filter: { podSandboxId: filter?.sandboxId ?? '' } });
    const out: ContainerStatus[] = [];
    for (const c of res.containers as { id: string }[]) {
      try {
        out.push(await this.containerStatus(c.id));
      } catch (err) {
        if (!(err instanceof RuntimeError && err.reason === 'NotFound')) throw err;
      }
    }
    return out;
  }

  /** ListContainerStats for every container; the kubelet keeps only the running ones' figures. */
  async listContainerStats(): Promise<ContainerStats[]> {
    const res = await this.client.runtime('ListContainerStats', { filter: {} }, 10_000);
    const value = (v: { value: number } | null | undefined) => (v ? Number(v.value) : undefined);
    return (res.stats as CriContainerStats[]).map((s) => {
      const a = s.attributes;
      const stamp = s.cpu?.timestamp || s.memory?.timestamp;
      const out: ContainerStats = {
        id: a?.id ?? '', name: a?.metadata?.name ?? a?.labels['io.kubernetes.container.name'] ?? '', podUid: a?.labels['io.kubernetes.pod.uid'] ?? '',
        timestamp: fromNanos(stamp ?? 0) ?? new Date(),
      };
      const cpu = value(s.cpu?.usageCoreNanoSeconds);
      const nanoCores = value(s.cpu?.usageNanoCores);
      const workingSet = value(s.memory?.workingSetBytes);
      const usage = value(s.memory?.usageBytes);
      const rss = value(s.memory?.rssBytes);
      if (cpu !== undefined) out.usageCoreNanoSeconds = cpu;
      if (nanoCores !== undefined) out.usageNanoCores = nanoCores;
      if (workingSet !== undefined) out.workingSetBytes = workingSet;
      if (usage !== undefined) out.usageBytes = usage;
      if (rss !== undefined) out.rssBytes = rss;
      return out;
    });
  }

  async containerStatus(id: string): Promise<ContainerStatus> {
    const cached = this.statusCache.get(id);
    if (cached?.confirmed && this.polling) return cached.status;
    return (await this.readContainerStatus(id)).status;
  }

  /** ContainerStatus from the runtime, kept in the cache (unconfirmed) while the PLEG runs. */
  private async readContainerStatus(id: string): Promise<{ status: ContainerStatus; state: number }> {
    let res: CriMessage;
    try {
      res = await this.client.runtime('ContainerStatus', { containerId: id });
    } catch (err) {
      if (err instanceof CriError && err.notFound) throw new RuntimeError('NotFound', `container ${id} not found`);
      throw err;
    }
    const s = res.status as CriContainerStatus;
    const state = CONTAINER_STATES[s.state] ?? 'Unknown';
    const exited = state === 'Exited';
    const status: ContainerStatus = {
      id: s.id, sandboxId: s.annotations[SANDBOX_ANNOTATION] ?? '', name: s.metadata?.name ?? '', attempt: s.metadata?.attempt ?? 0,
      image: s.image?.image ?? '', ...(s.imageRef ? { imageRef: s.imageRef } : {}), state, createdAt: fromNanos(s.createdAt) ?? new Date(0), startedAt: fromNanos(s.startedAt),
      finishedAt: exited ? fromNanos(s.finishedAt) : undefined,
      ...(exited ? { exitCode: s.exitCode, reason: s.reason || (s.exitCode === 0 ? 'Completed' : 'Error') } : {}),
      ...(s.message ? { message: s.message } : {}),
      logPath: s.logPath, labels: s.labels,
    };
    if (this.polling) this.statusCache.set(id, { status, state: s.state, confirmed: false });
    return { status, state: s.state };
  }

  async execSync(id: string, argv: string[], timeoutMs: number): Promise<ExecResult> {
    const timeout = Math.max(1, Math.ceil(timeoutMs / 1000));
    const res = await this.translate('RunContainerError', this.client.runtime('ExecSync', { containerId: id, cmd: argv, timeout }, timeoutMs + 10_000));
    return { exitCode: Number(res.exitCode), stdout: (res.stdout as Buffer).toString(), stderr: (res.stderr as Buffer).toString() };
  }

  /** CRI Exec: the runtime's streaming server URL the kubelet proxies the client's upgrade to. */
  async execUrl(id: string, argv: string[], opts: StreamOptions): Promise<string> {
    const res = await this.translate('RunContainerError', this.client.runtime('Exec', { containerId: id, cmd: argv, tty: opts.tty, stdin: opts.stdin, stdout: opts.stdout, stderr: opts.stderr }));
    return String(res.url);
  }

  async attachUrl(id: string, opts: StreamOptions): Promise<string> {
    const res = await this.translate('RunContainerError', this.client.runtime('Attach', { containerId: id, tty: opts.tty, stdin: opts.stdin, stdout: opts.stdout, stderr: opts.stderr }));
    return String(res.url);
  }

  exec(): Promise<ContainerStreams> {
    return Promise.reject(new RuntimeError('RunContainerError', 'exec goes through the CRI streaming server (execUrl)'));
  }

  attach(): Promise<ContainerStreams> {
    return Promise.reject(new RuntimeError('RunContainerError', 'attach goes through the CRI streaming server (attachUrl)'));
  }

  /**
   * A connection to `port` on the pod's localhost, as CRI PortForward gives
   * one: a relay inside the sandbox's network namespace (so a server bound to
   * the pod's 127.0.0.1 is reached too). A runtime that does not tell the
   * sandbox's pid (its verbose status) gets a plain connection to the pod IP.
   */
  async portForward(podSandboxId: string, port: number): Promise<NodeJS.ReadWriteStream & { destroy(): void }> {
    const pid = await this.sandboxPid(podSandboxId);
    if (pid) return dialInNetns(pid, port);
    const ip = this.sandboxIPs.get(podSandboxId) ?? (await this.sandboxStatus(podSandboxId))?.ip;
    if (!ip) throw new RuntimeError('NotFound', `pod sandbox ${podSandboxId} has no IP`);
    return dialPort(ip, port);
  }

  /** The pid of the sandbox's pause process (containerd and CRI-O put it in the verbose status's `info`). */
  private async sandboxPid(id: string): Promise<number | undefined> {
    const known = this.sandboxPids.get(id);
    if (known && existsSync(`/proc/${known}`)) return known;
    const info = await this.sandboxInfo(id);
    if (!info) throw new RuntimeError('NotFound', `pod sandbox ${id} not found`);
    const pid = Number(info.pid);
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    this.sandboxPids.set(id, pid);
    return pid;
  }

  /** The verbose status's `info` of a sandbox (containerd's and CRI-O's are JSON), or undefined once it is gone. */
  private async sandboxInfo(id: string): Promise<SandboxInfo | undefined> {
    let res: CriMessage;
    try {
      res = await this.client.runtime('PodSandboxStatus', { podSandboxId: id, verbose: true });
    } catch (err) {
      if (err instanceof CriError && err.notFound) return undefined;
      throw err;
    }
    try {
      return JSON.parse((res.info as Record<string, string>).info ?? '{}') as SandboxInfo;
    } catch {
      // not JSON: a runtime that words its info otherwise
      return {};
    }
  }

  /**
   * The network namespace paths every sandbox the runtime holds (whatever
   * its state) was given, from its runtime spec in the verbose status; each
   * sandbox is asked once in its life.
   */
  async heldNetnsPaths(): Promise<Set<string>> {
    const ids = new Set(((await this.client.runtime('ListPodSandbox', { filter: {} })).items as CriSandbox[]).map((s) => s.id));
    for (const id of this.sandboxNetns.keys()) if (!ids.has(id)) this.sandboxNetns.delete(id);
    for (const id of ids) {
      if (this.sandboxNetns.has(id)) continue;
      const info = await this.sandboxInfo(id);
      if (!info) continue;
      const ns = info.runtimeSpec?.linux?.namespaces?.find((n) => n.type === 'network');
      // a host-network sandbox has none
      this.sandboxNetns.set(id, ns?.path ?? '');
    }
    return new Set([...this.sandboxNetns.values()].filter(Boolean));
  }

  /** CRI ReopenContainerLog: the kubelet renamed the container's log to rotate it. */
  async reopenContainerLog(id: string): Promise<void> {
    await this.translate('RunContainerError', this.client.runtime('ReopenContainerLog', { containerId: id }));
  }

  /**
   * The PLEG's relist: one ListContainers, and every container whose state
   * differs from what the kubelet last read (or last saw) is read again and
   * announced. CRI 1.6 runtimes (Debian's containerd) have no
   * GetContainerEvents stream, so this is the only source of changes.
   */
  private async poll(signal: AbortSignal): Promise<void> {
    const seen = new Map<string, number>();
    let first = true;
    while (!signal.aborted) {
      try {
        const res = await this.client.runtime('ListContainers', {}, 10_000, 'ListContainerStatesResponse');
        const now = new Map((res.containers as { id: string; state: number }[]).map((c) => [c.id, c.state]));
        for (const id of this.statusCache.keys()) if (!now.has(id)) this.statusCache.delete(id);
        for (const [id, state] of now) {
          const cached = this.statusCache.get(id);
          if (cached?.state === state) {
            // what the kubelet read is still current: serve it until the state moves
            cached.confirmed = true;
            continue;
          }
          this.statusCache.delete(id);
          // a container the kubelet has not read: news unless this is the first look or it was already so
          if (!cached && (first || seen.get(id) === state)) continue;
          const read = await this.readContainerStatus(id).catch(() => undefined);
          if (!read) continue;
          const entry = this.statusCache.get(id);
          if (entry && read.state === state) entry.confirmed = true;
          for (const l of this.listeners) l(read.status);
        }
        seen.clear();
        for (const [id, state] of now) seen.set(id, state);
        first = false;
      } catch {
        // the runtime is restarting; the next round sees what changed meanwhile
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const t = setTimeout(done, this.opts.pollIntervalMs ?? 500);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  private async translate(reason: 'CreateContainerError' | 'RunContainerError' | 'CreatePodSandboxError', p: Promise<CriMessage>): Promise<CriMessage> {
    try {
      return await p;
    } catch (err) {
      if (err instanceof CriError) throw new RuntimeError(err.notFound ? 'NotFound' : reason, err.details);
      throw err;
    }
  }

  private async ignoreNotFound(p: Promise<CriMessage>): Promise<void> {
    try {
      await p;
    } catch (err) {
      if (!(err instanceof CriError && err.notFound)) throw err;
    }
  }
}
