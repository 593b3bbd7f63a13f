/**
 * The kubelet's view of a container runtime, shaped like CRI's
 * RuntimeService: a pod sandbox holds the pod's shared context (directory,
 * namespaces, IP), containers run inside it. Implementations: ProcessRuntime
 * (real host processes) and FakeRuntime (in memory, for tests).
 */

export interface Mount {
  /** Where the container sees it. */
  containerPath: string;
  hostPath: string;
  readOnly?: boolean;
}

/** Whose namespace a pod's containers use (CRI NamespaceMode): the sandbox's, their own, or the node's. */
export type NamespaceMode = 'Pod' | 'Container' | 'Node';

export interface PodNamespaces {
  network: NamespaceMode;
  pid: NamespaceMode;
  ipc: NamespaceMode;
}

/** A seccomp profile (CRI SecurityProfile); `localhostRef` is the profile file's absolute path. */
export interface SeccompProfile {
  type: 'RuntimeDefault' | 'Unconfined' | 'Localhost';
  localhostRef?: string;
}

/** A hostPort (CRI PortMapping); the runtime's CNI portmap plugin forwards it. */
export interface PortMapping {
  protocol: 'TCP' | 'UDP' | 'SCTP';
  containerPort: number;
  hostPort: number;
  hostIP?: string;
}

/** The pod-level Linux settings of a sandbox (CRI LinuxPodSandboxConfig), for runtimes that isolate pods. */
export interface SandboxLinux {
  /** The pod's cgroup (`/kubepods/burstable/pod<uid>`, or a systemd slice name). */
  cgroupParent?: string;
  namespaces: PodNamespaces;
  sysctls?: Record<string, string>;
  privileged?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  supplementalGroups?: number[];
  seccomp?: SeccompProfile;
}

/** A container's Linux security settings (CRI LinuxContainerSecurityContext), for runtimes that isolate containers. */
export interface ContainerSecurity {
  privileged?: boolean;
  /** Capability names as the pod spec gives them (`NET_ADMIN`, `ALL`); the runtime adds `CAP_`. */
  capabilities?: { add: string[]; drop: string[] };
  readOnlyRootFilesystem?: boolean;
  /** no_new_privs: allowPrivilegeEscalation is false. */
  noNewPrivs?: boolean;
  seccomp?: SeccompProfile;
  /** /proc paths hidden and made read-only (procMount Default); empty for Unmasked. */
  maskedPaths?: string[];
  readonlyPaths?: string[];
  supplementalGroups?: number[];
  namespaces?: PodNamespaces;
}

export interface PodSandboxConfig {
  uid: string;
  name: string;
  namespace: string;
  hostname: string;
  /** Directory for the pod's container log files. */
  logDirectory: string;
  labels?: Record<string, string>;
  /** The pod's resolv.conf (per dnsPolicy), for runtimes that give pods their own; absent: the runtime's default. */
  dnsConfig?: { servers: string[]; searches: string[]; options: string[] };
  /** hostPorts to forward into the pod. */
  portMappings?: PortMapping[];
  linux?: SandboxLinux;
}

export interface PodSandboxStatus {
  id: string;
  podUid: string;
  state: 'Ready' | 'NotReady';
  /** The pod's own IP, when the runtime gives pods one. */
  ip?: string;
  createdAt: Date;
}

export interface ContainerConfig {
  name: string;
  /** Restart count the kubelet is creating; lets logs and status keep history apart. */
  attempt: number;
  image: string;
  /** The full argv (command + args after `$(VAR)` expansion). */
  argv: string[];
  /**
   * The container's own command and args (expanded), when it gave them: an
   * image runtime combines them with the image's entrypoint and cmd as
   * upstream does. Absent, `argv` is the command.
   */
  command?: string[];
  args?: string[];
  /** The securityContext's user and group (container over pod), for runtimes that run images. */
  runAsUser?: number;
  runAsGroup?: number;
  /** The rest of the effective security context (container over pod). */
  security?: ContainerSecurity;
  env: Record<string, string>;
  workingDir?: string;
  mounts: Mount[];
  /** CRI-format log file for this container attempt. */
  logPath: string;
  /** Bytes; 0 or absent means unlimited. */
  memoryLimit?: number;
  /** Millicores; 0 or absent means unlimited. */
  cpuLimitMillis?: number;
  /** Millicores requested: the container's CPU weight (shares) where the runtime sets one. */
  cpuRequestMillis?: number;
  labels?: Record<string, string>;
  /** Keep a stdin pipe open for `attach` (the container's `stdin`); `stdinOnce` closes it after the first attach ends. */
  stdin?: boolean;
  stdinOnce?: boolean;
  /** The container's `tty`: its process runs on a terminal (stderr merged into stdout). */
  tty?: boolean;
}

export type ContainerState = 'Created' | 'Running' | 'Exited' | 'Unknown';

export interface ContainerStatus {
  id: string;
  sandboxId: string;
  name: string;
  attempt: number;
  image: string;
  /** The runtime's reference of the image it runs (a digest), for `imageID`. */
  imageRef?: string;
  state: ContainerState;
  createdAt: Date;
  startedAt?: Date;
  finishedAt?: Date;
  exitCode?: number;
  /** `Completed`, `Error` or `OOMKilled` once exited. */
  reason?: string;
  message?: string;
  logPath: string;
  pid?: number;
  labels: Record<string, string>;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Which standard streams a streaming exec or attach carries (CRI ExecRequest/AttachRequest). */
export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  /** A terminal: stderr is merged into stdout and the size can change. */
  tty: boolean;
  /** The terminal's size at start, when the client sent one. */
  initialSize?: { width: number; height: number };
}

/** The live ends of an exec'd process or an attached container. */
export interface ContainerStreams {
  stdin?: NodeJS.WritableStream;
  stdout?: NodeJS.ReadableStream;
  stderr?: NodeJS.ReadableStream;
  /** Settles once the output is complete: the exec'd process's exit code, or the attached container's end. */
  done: Promise<{ exitCode: number }>;
  /** Terminal size change (tty only; best effort). */
  resize(width: number, height: number): void;
  /** Ends the session early: kills an exec'd process, detaches from a container. */
  close(): void;
}

/** The runtime could not do what was asked; `reason` becomes the container's waiting reason. */
export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  constructor(
    readonly reason: 'CreateContainerError' | 'RunContainerError' | 'CreatePodSandboxError' | 'NotFound',
    message: string,
  ) {
    super(message);
  }
}

export interface SandboxRuntime {
  runPodSandbox(config: PodSandboxConfig): Promise<PodSandboxStatus>;
  /** Stops every container of the sandbox (SIGKILL) and releases its namespaces. Idempotent. */
  stopPodSandbox(id: string): Promise<void>;
  /** Forgets a stopped sandbox and its containers. Idempotent. */
  removePodSandbox(id: string): Promise<void>;
  /**
   * The runtime's sandboxes; a filter lets a runtime that can (CRI) return
   * only one sandbox or one pod's, so a pod's sync costs the same however
   * many pods the node runs. Callers still check what comes back.
   */
  listPodSandboxes(filter?: PodSandboxFilter): Promise<PodSandboxStatus[]>;
}

/** Narrows listPodSandboxes to a sandbox id or a pod uid (a hint: runtimes may return more). */
export interface PodSandboxFilter {
  id?: string;
  podUid?: string;
}

export interface ContainerRuntime {
  /** `sandbox` is the config the sandbox was created with (CRI passes it again: cgroup parent, namespaces). */
  createContainer(sandboxId: string, config: ContainerConfig, sandbox?: PodSandboxConfig): Promise<string>;
  startContainer(id: string): Promise<void>;
  /** SIGTERM, then SIGKILL after `timeoutSeconds`; resolves once the container has exited. */
  stopContainer(id: string, timeoutSeconds: number): Promise<void>;
  removeContainer(id: string): Promise<void>;
  listContainers(filter?: { sandboxId?: string }): Promise<ContainerStatus[]>;
  containerStatus(id: string): Promise<ContainerStatus>;
  /** Runs a command inside the container's context and collects its output. */
  execSync(id: string, argv: string[], timeoutMs: number): Promise<ExecResult>;
}

/** CRI's streaming calls: the kubelet server serves them to `kubectl exec` and `attach`. */
export interface StreamingRuntime {
  /** Starts a command inside a running container with live streams. */
  exec(id: string, argv: string[], opts: StreamOptions): Promise<ContainerStreams>;
  /** Joins a running container's output (and its stdin, when it was created with one). */
  attach(id: string, opts: StreamOptions): Promise<ContainerStreams>;
  /** A TCP connection to `port` inside the pod's network. */
  portForward(podSandboxId: string, port: number): Promise<NodeJS.ReadWriteStream & { destroy(): void }>;
}

/**
 * A runtime with its own streaming server (CRI): exec and attach are
 * prepared by a call that returns a URL, and the kubelet proxies the
 * client's upgrade to it instead of serving the streams itself.
 */
export interface StreamUrlRuntime {
  execUrl(id: string, argv: string[], opts: StreamOptions): Promise<string>;
  attachUrl(id: string, opts: StreamOptions): Promise<string>;
}

export function hasStreamUrls(r: object): r is StreamUrlRuntime {
  return 'execUrl' in r && 'attachUrl' in r;
}

export interface RuntimeVersion {
  runtimeName: string;
  runtimeVersion: string;
}

export interface Runtime extends SandboxRuntime, ContainerRuntime, StreamingRuntime {
  version(): RuntimeVersion;
  /** Fires when some container changed state (e.g. exited), so pod workers can resync promptly. */
  onContainerEvent(listener: (status: ContainerStatus) => void): void;
}

/** An image the runtime holds (CRI Image). */
export interface ImageInfo {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  sizeBytes: number;
  /** The image's configured user as a uid, when it is numeric. */
  uid?: number;
  /** The image's configured user when given by name. */
  username?: string;
  /** The runtime asks that it never be garbage collected (CRI `pinned`, e.g. the sandbox image). */
  pinned?: boolean;
}

/** Registry credentials for one pull (CRI AuthConfig). */
export interface RegistryAuth {
  username?: string;
  password?: string;
  /** base64 of `user:password`, as docker config files store it. */
  auth?: string;
  identityToken?: string;
  registryToken?: string;
}

/** A pull failed; `message` is the runtime's words (upstream shows them as the ErrImagePull message). */
export class ImagePullError extends Error {
  override readonly name = 'ImagePullError';
}

/** CRI's ImageService, for runtimes that run images (the process runtime does not). */
export interface ImageService {
  /** The image when present, else undefined. */
  imageStatus(image: string): Promise<ImageInfo | undefined>;
  /** Pulls the image and returns its reference (image id); throws ImagePullError. */
  pullImage(image: string, auth?: RegistryAuth): Promise<string>;
  listImages(): Promise<ImageInfo[]>;
}

export function hasImageService(r: object): r is ImageService {
  return 'pullImage' in r && 'imageStatus' in r && 'listImages' in r;
}

/** One container's resource usage at a moment (CRI ContainerStats: cpu and memory). */
export interface ContainerStats {
  id: string;
  /** The container's name in its pod (the `io.kubernetes.container.name` label). */
  name: string;
  /** The pod it belongs to (the `io.kubernetes.pod.uid` label). */
  podUid: string;
  /** When the figures were read. */
  timestamp: Date;
  /** Cumulative CPU time over all cores since the container started, in nanoseconds. */
  usageCoreNanoSeconds?: number;
  /** The runtime's own average over its last window, when it keeps one (CRI usage_nano_cores). */
  usageNanoCores?: number;
  /** Memory in use minus what the kernel may reclaim at once (inactive file pages): what OOM decisions look at. */
  workingSetBytes?: number;
  usageBytes?: number;
  rssBytes?: number;
}

/** CRI's ListContainerStats: usage of the containers that are running now. */
export interface StatsRuntime {
  listContainerStats(): Promise<ContainerStats[]>;
}

export function hasContainerStats(r: object): r is StatsRuntime {
  return 'listContainerStats' in r;
}
