import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ContainerStatus as ApiContainerStatus, Container, Pod, PodCondition, PodStatus, Secret } from 'kubernetes-types/core/v1.js';
import type { ImagePuller } from '../images/image-puller.js';
import type { Logger } from '../../machinery/logger.js';
import { realClock, rfc3339, type Clock, type TimerHandle } from '../../base/clock.js';
import { Quantity } from '../../machinery/quantity.js';
import { ProbeWorker, type ProbeType } from '../probes/probe-worker.js';
import { runProbe } from '../probes/run-probe.js';
import { RuntimeError, type ContainerSecurity, type PodSandboxConfig, type Runtime } from '../runtime/runtime.js';
import { VolumeNotReadyError } from '../volumes/claim-paths.js';
import { setUpVolumes, type VolumePaths } from '../volumes/volume-builder.js';
import { unmountAll } from '../volumes/memory-medium.js';
import { subPathMounts } from '../volumes/sub-path.js';
import { adoptContainers } from './adopt-containers.js';
import { ContainerConfigError, containerArgv, containerEnv, expandVars, type ObjectSource } from './container-env.js';
import { computePodActions, type PodActions } from './compute-pod-actions.js';
import { podStatus, type ContainerRecord } from './pod-status.js';
import { podDir, podLogDir, podVolumesDir } from './pod-paths.js';
import { verifyRunAsNonRoot } from './run-as-non-root.js';
import { RestartBackoff } from './restart-backoff.js';
import { podDnsConfig, type KubeletDnsSettings, type PodDnsConfig } from './pod-dns.js';
import type { PodCgroups } from './pod-cgroups.js';
import { containerSecurity, podPortMappings, sandboxLinux, type SecurityOptions } from './security-context.js';
import { SYSCTL_FORBIDDEN, type SysctlAllowlist } from './sysctl-allowlist.js';
import { context, type SpanContext } from '@opentelemetry/api';
import { ATTR } from '../../trace/attributes.js';
import { detachedContext } from '../../trace/component-context.js';
import { addCause, currentCause, inCausedSpan, inChildSpan } from '../../trace/spans.js';

/** How often a pod is synced when nothing asks (upstream's --sync-frequency default, 1 min). */
export const SYNC_FREQUENCY_MS = 60_000;

export interface PodWorkerDeps {
  runtime: Runtime;
  objects: ObjectSource;
  rootDir: string;
  hostIP: string;
  allocatable: () => Record<string, string>;
  logger: Logger;
  /** Writes the pod's status to the API server. */
  writeStatus(pod: Pod, status: PodStatus): Promise<void>;
  /** Confirms a graceful deletion once everything has stopped. */
  confirmDeletion(pod: Pod): Promise<void>;
  /** Records an Event about the pod (Created, Started, Killing, BackOff, Failed), as upstream's kubelet does. */
  recordEvent?(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** Pulls images under the pull policy, for runtimes that run images. */
  images?: ImagePuller;
  /** Time and timers: resyncs, restart back-off, grace periods, probes (default the real clock). */
  clock?: Clock;
  /** Cluster DNS settings for pods' resolv.conf (absent: the runtime's default). */
  dns?: KubeletDnsSettings;
  /** Seccomp profile root and default (default: `<rootDir>/seccomp`, Unconfined). */
  security?: SecurityOptions;
  /** Sysctl pod admission (absent: every pod is admitted). */
  sysctls?: SysctlAllowlist;
  /** Further pod admission, asked first (the eviction manager's: no pods under disk pressure); undefined admits. */
  admitPod?(pod: Pod): { reason: string; message: string } | undefined;
  /** Pod-level cgroups under the QoS hierarchy, for runtimes that take a cgroup parent. */
  cgroups?: PodCgroups;
}

interface Record_ extends ContainerRecord {
  probes?: AbortController;
  liveness?: ProbeWorker;
  readiness?: ProbeWorker;
  startup?: ProbeWorker;
  backoff: RestartBackoff;
  startupFailed?: boolean;
}

/**
 * Converges one pod: each `sync()` compares the desired pod with what runs
 * and takes the next steps (sandbox, volumes, init containers in order,
 * containers under the restart policy, probes), then reports status. Syncs
 * are level-triggered and serialized; `request()` coalesces triggers.
 */
export class PodWorker {
  private pod: Pod;
  private gone = false;
  private sandboxId?: string;
  private podIP?: string;
  private readonly records = new Map<string, Record_>();
  private dirty = false;
  private loop?: Promise<void>;
  private timer?: TimerHandle;
  private timerAt = 0;
  private lastStatus = '';
  private finished = false;
  /** Whatever the runtime still runs for this pod (after a kubelet restart) has been taken over. */
  private adopted = false;
  private stopped = false;
  private readonly clock: Clock;
  /** When the kubelet first took the pod on; a restarted kubelet keeps the one it reported. */
  private readonly startTime: string;
  /** The traced watch deliveries that asked for the next sync. */
  private causes: SpanContext[] = [];
  /** Why the kubelet refused the pod (upstream's pod admission), once decided: null when admitted. */
  private rejected?: { reason: string; message: string } | null;
  /** The eviction manager's order to kill the pod for good, and whether it has been carried out. */
  private eviction?: { reason: string; message: string; gracePeriodSeconds: number; condition?: PodCondition; done: boolean };

  constructor(pod: Pod, private readonly deps: PodWorkerDeps) {
    this.pod = pod;
    this.clock = deps.clock ?? realClock;
    this.startTime = pod.status?.startTime ?? rfc3339(this.clock.now());
  }

  get uid(): string {
    return this.pod.metadata?.uid ?? '';
  }

  get currentPod(): Pod {
    return this.pod;
  }

  get done(): boolean {
    return this.finished;
  }

  update(pod: Pod): void {
    this.pod = pod;
  }

  /** The pod vanished from the API server (force-deleted): tear down without confirming. */
  remove(): Promise<void> {
    this.gone = true;
    return this.request();
  }

  /** The pod's sandbox, once created (for port-forward). */
  get podSandboxId(): string | undefined {
    return this.sandboxId;
  }

  /** The API object lost our status (a mirror pod was recreated): write it again on the next sync. */
  resendStatus(): Promise<void> {
    this.lastStatus = '';
    return this.request();
  }

  /** Admitted, running or about to, and not on its way out: what the eviction manager may evict (upstream's active pods). */
  get active(): boolean {
    const phase = this.pod.status?.phase;
    return this.rejected === null && !this.eviction && !this.gone && !this.finished && !this.pod.metadata?.deletionTimestamp && phase !== 'Failed' && phase !== 'Succeeded';
  }

  /** The pod was evicted (or is being): it will not run again. */
  get evicted(): boolean {
    return this.eviction !== undefined;
  }

  /**
   * Kills the pod for good and marks it Failed with `reason` (upstream's
   * TerminatePodAbnormallyAndWait): its containers stop within the grace
   * period, its sandbox stops, its local volumes are removed, and its status
   * says why. Resolves once that is done (or the sync failed; it retries).
   */
  evict(o: { reason: string; message: string; gracePeriodSeconds: number; condition?: PodCondition }): Promise<void> {
    this.eviction ??= { ...o, done: false };
    return this.request();
  }

  /** Names the container (for logs) → the record. */
  container(name: string): ContainerRecord | undefined {
    return this.records.get(name);
  }

  /** Schedules a sync; returns a promise settled when the worker is idle. */
  request(): Promise<void> {
    // a watch delivery (the pod was bound, changed) is the cause of the next sync
    const cause = currentCause();
    if (cause) addCause(this.causes, cause);
    this.dirty = true;
    this.loop ??= this.drain().finally(() => (this.loop = undefined));
    return this.loop;
  }

  /** The kubelet is shutting down: no more syncs or status writes; containers are left as they are. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelResync();
    for (const r of this.records.values()) r.probes?.abort();
    await this.loop;
  }

  private async drain(): Promise<void> {
    while (this.dirty && !this.finished && !this.stopped) {
      this.dirty = false;
      const causes = this.causes;
      this.causes = [];
      try {
        await this.tracedSync(causes);
      } catch (err) {
        this.deps.logger.warn('pod sync failed', { pod: this.key(), error: err instanceof Error ? err.message : String(err) });
        this.later(1000);
      }
    }
  }

  /** A sync caused by watch deliveries runs in a span linked to them; one from a timer runs bare. */
  private tracedSync(causes: SpanContext[]): Promise<void> {
    if (causes.length === 0) return context.with(detachedContext(), () => this.sync());
    const attributes = { [ATTR.namespace]: this.pod.metadata?.namespace ?? '', [ATTR.name]: this.pod.metadata?.name ?? '' };
    return inCausedSpan(`sync pod ${this.key()}`, causes, { hop: 'sync', initiator: 'watch', attributes }, () => this.sync());
  }

  /** Schedules a resync in `ms`, unless one is already due sooner. */
  private later(ms: number): void {
    if (this.stopped) return;
    const at = this.clock.now() + ms;
    if (this.timer && this.timerAt > this.clock.now() && this.timerAt <= at) return;
    this.clock.clearTimeout(this.timer);
    this.timerAt = at;
    // a timer's resync is not caused by whatever sync armed it
    this.timer = this.clock.setTimeout(() => context.with(detachedContext(), () => void this.request()), ms);
    if ('unref' in this.timer) this.timer.unref();
  }

  /**
   * Cancels the pending resync and forgets it, so the next `later` arms a
   * new one: a cleared timer still in `this.timer` would pass for a pending
   * resync, and a failed termination would never be retried.
   */
  private cancelResync(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = 0;
  }

  private key(): string {
    return `${this.pod.metadata?.namespace}/${this.pod.metadata?.name}`;
  }

  private podDir(): string {
    return podDir(this.deps.rootDir, this.uid);
  }

  private podLogDir(): string {
    return podLogDir(this.deps.rootDir, this.pod);
  }

  private recordsInOrder(): Record_[] {
    const spec = this.pod.spec;
    const all: [Container, boolean][] = [...(spec?.initContainers ?? []).map((c): [Container, boolean] => [c, true]), ...(spec?.containers ?? []).map((c): [Container, boolean] => [c, false])];
    const records = all.map(([c, init]) => {
      let r = this.records.get(c.name);
      if (!r) {
        r = { spec: c, init, restartCount: 0, ready: false, started: false, backoff: new RestartBackoff() };
        this.records.set(c.name, r);
      }
      r.spec = c;
      return r;
    });
    // ephemeral containers come last; their fields are a subset of a container's
    for (const c of spec?.ephemeralContainers ?? []) {
      let r = this.records.get(c.name);
      if (!r) {
        r = { spec: c as Container, init: false, ephemeral: true, restartCount: 0, ready: false, started: false, backoff: new RestartBackoff() };
        this.records.set(c.name, r);
      }
      records.push(r);
    }
    return records;
  }

  async sync(): Promise<void> {
    // a restarted kubelet first takes over what runs of the pod, so that terminating it stops those containers too
    await this.adopt();
    if (this.gone || this.pod.metadata?.deletionTimestamp) return this.terminate();
    if (this.eviction) return this.carryOutEviction();
    const records = this.recordsInOrder();
    for (const r of records) if (r.current) r.current = await this.deps.runtime.containerStatus(r.current.id).catch(() => r.current);
    // upstream's pod admission: a pod the kubelet may not run fails before anything of it starts
    if (this.rejected === undefined) this.rejected = this.sandboxId ? null : this.admit();
    if (this.rejected) return this.reportRejected(this.rejected);
    const sandboxes = this.sandboxId ? await this.deps.runtime.listPodSandboxes({ id: this.sandboxId }) : [];
    const sandbox = this.sandboxId ? { id: this.sandboxId, ready: sandboxes.some((s) => s.id === this.sandboxId && s.state === 'Ready') } : undefined;
    const actions = computePodActions(this.pod, {
      sandbox,
      containers: records.map((r) => ({ name: r.spec.name, init: r.init, ephemeral: r.ephemeral, current: r.current, unhealthy: this.unhealthy(r) })),
    });
    return this.execute(actions, records);
  }

  /** Which probe demands a restart of a running container, if any. */
  private unhealthy(r: Record_): 'liveness' | 'startup' | undefined {
    if (r.current?.state !== 'Running') return undefined;
    if (r.liveness && !r.liveness.ok) return 'liveness';
    if (r.startup && !r.startup.ok && r.startupFailed) return 'startup';
    return undefined;
  }

  private admit(): { reason: string; message: string } | null {
    const refused = this.deps.admitPod?.(this.pod);
    if (refused) return refused;
    const why = this.deps.sysctls?.admit(this.pod);
    return why ? { reason: SYSCTL_FORBIDDEN, message: why } : null;
  }

  /** Stops everything of an evicted pod, frees its local volumes and writes its Failed status, once. */
  private async carryOutEviction(): Promise<void> {
    const e = this.eviction!;
    if (e.done || this.stopped) return;
    this.clock.clearTimeout(this.timer);
    await this.stopAll(e.gracePeriodSeconds);
    if (this.sandboxId) await this.deps.runtime.stopPodSandbox(this.sandboxId);
    // as upstream's volume manager for a terminated pod: its emptyDirs (what filled the disk) go now, the pod object stays
    rmSync(podVolumesDir(this.deps.rootDir, this.uid), { recursive: true, force: true });
    const records = this.recordsInOrder();
    const status = podStatus({
      pod: this.pod, containers: records, sandboxReady: false, podIP: this.podIP,
      hostIP: this.deps.hostIP, startTime: this.startTime, runtimeName: this.deps.runtime.version().runtimeName, now: this.clock.now(),
    });
    status.phase = 'Failed';
    status.reason = e.reason;
    status.message = e.message;
    if (e.condition) {
      const at = rfc3339(this.clock.now());
      status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== e.condition!.type), { ...e.condition, lastProbeTime: null as unknown as undefined, lastTransitionTime: at }];
    }
    await this.deps.writeStatus(this.pod, status);
    e.done = true;
    this.deps.logger.info('pod evicted', { pod: this.key(), reason: e.reason });
  }

  /** upstream's rejectPod: a Warning event and phase Failed with `Pod was rejected: …`. */
  private async reportRejected(r: { reason: string; message: string }): Promise<void> {
    const status: PodStatus = { phase: 'Failed', reason: r.reason, message: `Pod was rejected: ${r.message}`, qosClass: this.pod.status?.qosClass };
    const text = JSON.stringify(status);
    if (text === this.lastStatus || this.stopped) return;
    this.event('Warning', r.reason, r.message);
    await this.deps.writeStatus(this.pod, status);
    this.lastStatus = text;
  }

  /** The sandbox as CRI gets it on creation and again with every container (namespaces, cgroup parent, sysctls, hostPorts). */
  private sandboxConfig(dnsConfig?: PodDnsConfig): PodSandboxConfig {
    const spec = this.pod.spec;
    return {
      uid: this.uid, name: this.pod.metadata?.name ?? '', namespace: this.pod.metadata?.namespace ?? 'default',
      // a hostNetwork pod has the node's hostname, as upstream leaves it to the runtime
      hostname: spec?.hostNetwork ? '' : spec?.hostname ?? this.pod.metadata?.name ?? '', logDirectory: this.podLogDir(),
      dnsConfig,
      portMappings: podPortMappings(this.pod),
      linux: sandboxLinux(this.pod, this.deps.cgroups?.parentFor(this.pod)),
    };
  }

  private securityOptions(): SecurityOptions {
    return this.deps.security ?? { seccompProfileRoot: join(this.deps.rootDir, 'seccomp') };
  }

  /** Writes the pod's cgroup limits; the runtime still creates the cgroup when this cannot. */
  private ensureCgroup(): void {
    try {
      this.deps.cgroups?.ensure(this.pod);
    } catch (err) {
      this.deps.logger.warn('setting up the pod cgroup failed', { pod: this.key(), error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** The pod's resolv.conf per its dnsPolicy; problems become Events as upstream's. */
  private dnsConfig(): PodDnsConfig | undefined {
    if (!this.deps.dns) return undefined;
    const { config, warnings } = podDnsConfig(this.pod, this.deps.dns);
    for (const w of warnings) this.deps.recordEvent?.(this.pod, 'Warning', w.reason, w.message);
    return config;
  }

  /** The thin half: carries out what computePodActions decided. */
  private async execute(actions: PodActions, records: Record_[]): Promise<void> {
    if (actions.killPod) {
      await this.stopAll(0);
      if (!actions.createSandbox) return this.report(records);
      this.deps.logger.info('pod sandbox changed, recreating it', { pod: this.key() });
      await this.deps.runtime.removePodSandbox(this.sandboxId!).catch(() => undefined);
      this.sandboxId = undefined;
    }
    // the pod's ConfigMaps, Secrets and tokens are fetched while the runtime builds the sandbox, as upstream's volume manager runs beside the pod worker
    const objectsSynced = this.deps.objects.whenSynced?.(this.pod);
    objectsSynced?.catch(() => undefined);
    if (actions.createSandbox) {
      this.ensureCgroup();
      const sb = await inChildSpan('create sandbox', { hop: 'sandbox' }, () => this.deps.runtime.runPodSandbox(this.sandboxConfig(this.dnsConfig())));
      // a systemd-managed pod cgroup exists only now
      this.ensureCgroup();
      this.sandboxId = sb.id;
      this.podIP = sb.ip ?? this.deps.hostIP;
    }
    for (const k of actions.containersToKill) await this.restartUnhealthy(this.records.get(k.name) as Record_, k.message);
    let volumes: VolumePaths;
    await objectsSynced;
    let claims: Map<string, string> | undefined;
    try {
      claims = await this.deps.objects.claimPaths?.(this.pod);
    } catch (err) {
      if (!(err instanceof VolumeNotReadyError)) throw err;
      // as upstream's volume manager: the pod stays ContainerCreating and says why
      for (const r of records) if (r.current?.state !== 'Running') r.waiting = { reason: 'ContainerCreating' };
      this.event('Warning', 'FailedMount', err.message);
      this.later(2000);
      return this.report(records);
    }
    try {
      mkdirSync(this.podDir(), { recursive: true });
      volumes = setUpVolumes({ pod: this.pod, podDir: this.podDir(), objects: this.deps.objects, allocatable: this.deps.allocatable(), claims, mountTmpfs: process.getuid?.() === 0 });
    } catch (err) {
      if (!(err instanceof ContainerConfigError)) throw err;
      for (const r of records) if (r.current?.state !== 'Running') r.waiting = { reason: 'CreateContainerConfigError', message: err.message };
      this.later(2000);
      return this.report(records);
    }
    const toStart = new Set([...(actions.nextInitContainer ? [actions.nextInitContainer] : []), ...actions.containersToStart, ...actions.ephemeralContainersToStart]);
    for (const r of records) {
      if (toStart.has(r.spec.name)) await this.maybeStart(r, volumes);
      else if (r.current?.state === 'Exited') r.waiting = undefined;
    }
    await this.report(records);
    // level-triggered safety net: volumes refresh and missed events heal on this period; changes themselves
    // (the pod, its ConfigMaps and Secrets, container state, probes) ask for a sync at once
    this.later(SYNC_FREQUENCY_MS);
  }

  /** Starts (or restarts, honouring CrashLoopBackOff) one container that is not running. */
  private async maybeStart(r: Record_, volumes: VolumePaths): Promise<void> {
    if (r.current?.state === 'Exited') {
      const ranFor = (r.current.finishedAt?.getTime() ?? 0) - (r.current.startedAt?.getTime() ?? 0);
      const wait = r.backoff.next(r.current.finishedAt ?? new Date(this.clock.now()), ranFor);
      if (wait > 0) {
        r.waiting = { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(r.backoff.current / 1000)}s restarting failed container=${r.spec.name} pod=${this.pod.metadata?.name}_${this.pod.metadata?.namespace}(${this.uid})` };
        this.event('Warning', 'BackOff', `Back-off restarting failed container ${r.spec.name} in pod ${this.pod.metadata?.name}_${this.pod.metadata?.namespace}(${this.uid})`);
        this.later(wait);
        return;
      }
    }
    await inChildSpan(`start container ${r.spec.name}`, { hop: 'container-start', attributes: { [ATTR.container]: r.spec.name, [ATTR.image]: r.spec.image ?? '' } }, () => this.start(r, volumes));
  }

  private async start(r: Record_, volumes: VolumePaths): Promise<void> {
    const attempt = r.current ? r.restartCount + 1 : r.restartCount;
    let env: Record<string, string>;
    try {
      env = containerEnv(r.spec, { pod: this.pod, objects: this.deps.objects, allocatable: this.deps.allocatable() });
    } catch (err) {
      if (!(err instanceof ContainerConfigError)) throw err;
      r.waiting = { reason: 'CreateContainerConfigError', message: err.message };
      this.later(2000);
      return;
    }
    const full = { HOSTNAME: this.pod.spec?.hostname ?? this.pod.metadata?.name ?? '', ...env };
    if (this.deps.images) {
      const images = this.deps.images;
      const pulled = await inChildSpan(`image ${r.spec.image ?? ''}`, { hop: 'image-pull', attributes: { [ATTR.image]: r.spec.image ?? '' } }, () => images.ensureImageExists(this.pod, r.spec, this.pullSecrets()));
      if (!pulled.ok) {
        r.waiting = { reason: pulled.reason, message: pulled.message };
        this.event('Warning', 'Failed', `Error: ${pulled.reason}`);
        this.later(pulled.retryAfterMs);
        return;
      }
    }
    const images = this.deps.images;
    const nonRoot = await verifyRunAsNonRoot(this.pod, r.spec, images && (() => images.imageUser(r.spec.image ?? '')));
    if (nonRoot) {
      r.waiting = { reason: 'CreateContainerConfigError', message: nonRoot };
      this.event('Warning', 'Failed', `Error: ${nonRoot}`);
      this.later(10_000);
      return;
    }
    let security: ContainerSecurity;
    try {
      security = containerSecurity(this.pod, r.spec, this.securityOptions());
    } catch (err) {
      if (!(err instanceof ContainerConfigError)) throw err;
      r.waiting = { reason: 'CreateContainerConfigError', message: err.message };
      this.event('Warning', 'Failed', `Error: ${err.message}`);
      this.later(10_000);
      return;
    }
    let mounts: ReturnType<typeof subPathMounts>;
    try {
      mounts = subPathMounts(r.spec.volumeMounts ?? [], volumes, full);
    } catch (err) {
      if (!(err instanceof ContainerConfigError)) throw err;
      r.waiting = { reason: 'CreateContainerConfigError', message: err.message };
      this.event('Warning', 'Failed', `Error: ${err.message}`);
      this.later(10_000);
      return;
    }
    const limits = r.spec.resources?.limits ?? {};
    const cpuRequest = r.spec.resources?.requests?.cpu ?? limits.cpu;
    try {
      const id = await this.deps.runtime.createContainer(this.sandboxId!, {
        name: r.spec.name,
        attempt,
        image: r.spec.image ?? '',
        argv: containerArgv(r.spec, full),
        command: r.spec.command?.map((a) => expandVars(a, full)),
        args: r.spec.args?.map((a) => expandVars(a, full)),
        runAsUser: r.spec.securityContext?.runAsUser ?? this.pod.spec?.securityContext?.runAsUser,
        runAsGroup: r.spec.securityContext?.runAsGroup ?? this.pod.spec?.securityContext?.runAsGroup,
        security,
        env: full,
        workingDir: r.spec.workingDir,
        mounts,
        logPath: join(this.podLogDir(), r.spec.name, `${attempt}.log`),
        memoryLimit: limits.memory ? Quantity.parse(String(limits.memory)).value() : undefined,
        cpuLimitMillis: limits.cpu ? Quantity.parse(String(limits.cpu)).milliValue() : undefined,
        cpuRequestMillis: cpuRequest ? Quantity.parse(String(cpuRequest)).milliValue() : 0,
        labels: { 'io.kubernetes.pod.uid': this.uid, 'io.kubernetes.container.name': r.spec.name },
        stdin: r.spec.stdin,
        stdinOnce: r.spec.stdinOnce,
        tty: r.spec.tty,
      }, this.sandboxConfig());
      mkdirSync(join(this.podLogDir(), r.spec.name), { recursive: true });
      this.event('Normal', 'Created', `Created container ${r.spec.name}`);
      await this.deps.runtime.startContainer(id);
      this.event('Normal', 'Started', `Started container ${r.spec.name}`);
      if (r.current) {
        if (r.last?.id !== r.current.id) await this.deps.runtime.removeContainer(r.last?.id ?? '').catch(() => undefined);
        r.last = r.current;
      }
      r.restartCount = attempt;
      r.current = await this.deps.runtime.containerStatus(id);
      r.waiting = undefined;
      this.startProbes(r);
    } catch (err) {
      if (!(err instanceof RuntimeError)) throw err;
      r.waiting = { reason: err.reason === 'CreateContainerError' ? 'CreateContainerError' : 'RunContainerError', message: err.message };
      this.event('Warning', 'Failed', `Error: ${err.message}`);
      this.later(5000);
    }
  }

  /** The pod's image pull secrets that exist; a missing one is reported as upstream does and skipped. */
  private pullSecrets(): Secret[] {
    const ns = this.pod.metadata?.namespace ?? 'default';
    const found: Secret[] = [];
    const missing: string[] = [];
    for (const ref of this.pod.spec?.imagePullSecrets ?? []) {
      const s = ref.name ? this.deps.objects.secret(ns, ref.name) : undefined;
      if (s) found.push(s);
      else if (ref.name) missing.push(ref.name);
    }
    if (missing.length) this.event('Warning', 'FailedToRetrieveImagePullSecret', `Unable to retrieve some image pull secrets (${missing.join(', ')}); attempting to pull the image may not succeed.`);
    return found;
  }

  /** Starts the container's probes; `reported` (an adopted container's last API status) keeps its readiness until probed again. */
  private startProbes(r: Record_, reported?: ApiContainerStatus): void {
    r.probes?.abort();
    r.probes = new AbortController();
    r.ready = !r.spec.readinessProbe || (reported?.ready ?? false);
    r.started = !r.spec.startupProbe || (reported?.started ?? false);
    // the probe worker's verdict starts false, so a failing first probe would never report: drop the kept readiness on it
    let keptReady = r.ready && r.spec.readinessProbe !== undefined;
    r.liveness = r.readiness = r.startup = undefined;
    r.startupFailed = false;
    const startedAt = r.current?.startedAt ?? new Date(this.clock.now());
    const id = r.current!.id;
    const target = { host: this.podIP ?? this.deps.hostIP, container: r.spec, exec: (argv: string[], t: number) => this.deps.runtime.execSync(id, argv, t) };
    const make = (type: ProbeType): ProbeWorker | undefined => {
      const probe = type === 'liveness' ? r.spec.livenessProbe : type === 'readiness' ? r.spec.readinessProbe : r.spec.startupProbe;
      if (!probe) return undefined;
      const w = new ProbeWorker({
        type, probe, target, startedAt, clock: this.deps.clock,
        run: type === 'readiness' && keptReady ? async (p, t) => {
          const result = await runProbe(p, t);
          if (keptReady && !result.ok) {
            r.ready = false;
            void this.request();
          }
          keptReady = false;
          return result;
        } : undefined,
        started: () => r.started,
        onChange: (ok, result) => {
          if (type === 'readiness') r.ready = ok;
          if (type === 'startup') {
            r.started = ok;
            if (!ok) r.startupFailed = true;
          }
          if (!ok) this.deps.logger.info(`${type} probe failed`, { pod: this.key(), container: r.spec.name, message: result.message });
          void this.request();
        },
      });
      void w.run(r.probes!.signal);
      return w;
    };
    // a container that had started before the kubelet restarted is not probed for startup again
    r.startup = r.started ? undefined : make('startup');
    r.liveness = make('liveness');
    r.readiness = make('readiness');
  }

  private async restartUnhealthy(r: Record_, message: string): Promise<void> {
    this.deps.logger.info('restarting unhealthy container', { pod: this.key(), container: r.spec.name });
    this.event('Normal', 'Killing', message);
    r.probes?.abort();
    await this.runPreStop(r, this.gracePeriod());
    await this.deps.runtime.stopContainer(r.current!.id, this.gracePeriod());
    r.current = await this.deps.runtime.containerStatus(r.current!.id);
    this.dirty = true;
  }

  private event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.deps.recordEvent?.(this.pod, type, reason, message);
  }

  private gracePeriod(): number {
    return this.pod.metadata?.deletionGracePeriodSeconds ?? this.pod.spec?.terminationGracePeriodSeconds ?? 30;
  }

  private async runPreStop(r: Record_, graceSeconds: number): Promise<void> {
    const cmd = r.spec.lifecycle?.preStop?.exec?.command;
    if (!cmd?.length || r.current?.state !== 'Running') return;
    await this.deps.runtime.execSync(r.current.id, [...cmd], graceSeconds * 1000).catch(() => undefined);
  }

  private async stopAll(grace: number): Promise<void> {
    await Promise.all([...this.records.values()].map(async (r) => {
      r.probes?.abort();
      if (r.current?.state !== 'Running') return;
      const started = this.clock.now();
      this.event('Normal', 'Killing', `Stopping container ${r.spec.name}`);
      await this.runPreStop(r, grace);
      const left = Math.max(grace > 0 ? 1 : 0, grace - Math.floor((this.clock.now() - started) / 1000));
      await this.deps.runtime.stopContainer(r.current.id, left);
      r.current = await this.deps.runtime.containerStatus(r.current.id);
      r.ready = false;
    }));
  }

  /** Once per worker: containers and sandbox of this pod left running by an earlier kubelet become ours. */
  private async adopt(): Promise<void> {
    if (this.adopted) return;
    this.adopted = true;
    const found = await adoptContainers(this.deps.runtime, this.pod, this.recordsInOrder(), this.deps.runtime.version().runtimeName);
    if (!found) return;
    this.sandboxId = found.sandbox.id;
    this.podIP = found.sandbox.ip ?? this.deps.hostIP;
    if (!this.gone && !this.pod.metadata?.deletionTimestamp) for (const { record, reported } of found.running) this.startProbes(record as Record_, reported);
    this.deps.logger.info('adopted running pod', { pod: this.key(), containers: found.running.length });
  }

  /** Graceful termination: preStop, SIGTERM, SIGKILL after the grace period, then confirm the delete. */
  private async terminate(): Promise<void> {
    this.cancelResync();
    await this.stopAll(this.gone ? 0 : this.gracePeriod());
    if (this.sandboxId) await this.deps.runtime.removePodSandbox(this.sandboxId);
    this.sandboxId = undefined;
    this.deps.cgroups?.remove(this.uid);
    // the pod's tmpfs volumes are unmounted before its deletion is confirmed, as upstream's volume manager
    unmountAll(this.podDir());
    if (!this.gone) {
      await this.report(this.recordsInOrder()).catch(() => undefined);
      await this.deps.confirmDeletion(this.pod);
    }
    rmSync(this.podDir(), { recursive: true, force: true });
    rmSync(this.podLogDir(), { recursive: true, force: true });
    this.finished = true;
    this.deps.logger.info('pod terminated', { pod: this.key() });
  }

  private async report(records: ContainerRecord[]): Promise<void> {
    // a refused or evicted pod's Failed status was written once and stays
    if (this.stopped || this.rejected || this.eviction) return;
    const status = podStatus({
      pod: this.pod, containers: records, sandboxReady: this.sandboxId !== undefined, podIP: this.podIP,
      hostIP: this.deps.hostIP, startTime: this.startTime, runtimeName: this.deps.runtime.version().runtimeName, now: this.clock.now(),
    });
    const text = JSON.stringify({ ...status, conditions: status.conditions?.map((c) => ({ ...c, lastTransitionTime: undefined })) });
    if (text === this.lastStatus) return;
    await inChildSpan('write status', { hop: 'status', attributes: { 'k8s.pod.phase': status.phase ?? '' } }, () => this.deps.writeStatus(this.pod, status));
    this.lastStatus = text;
  }
}
