import protobuf from 'protobufjs';

/**
 * The subset of CRI `runtime.v1` messages skiff uses, written from the
 * published field numbers (enums travel as int32, which is the same on the
 * wire). Unknown fields from newer runtimes are skipped by the decoder.
 */
type Field = [id: number, type: string, rule?: 'repeated' | 'map'];
type Fields = Record<string, Field>;

const stringMap = (id: number): Field => [id, 'string', 'map'];

const messages: Record<string, Fields> = {
  VersionRequest: { version: [1, 'string'] },
  VersionResponse: { version: [1, 'string'], runtimeName: [2, 'string'], runtimeVersion: [3, 'string'], runtimeApiVersion: [4, 'string'] },
  DNSConfig: { servers: [1, 'string', 'repeated'], searches: [2, 'string', 'repeated'], options: [3, 'string', 'repeated'] },
  PortMapping: { protocol: [1, 'int32'], containerPort: [2, 'int32'], hostPort: [3, 'int32'], hostIp: [4, 'string'] },
  Mount: { containerPath: [1, 'string'], hostPath: [2, 'string'], readonly: [3, 'bool'], selinuxRelabel: [4, 'bool'], propagation: [5, 'int32'] },
  NamespaceOption: { network: [1, 'int32'], pid: [2, 'int32'], ipc: [3, 'int32'], targetId: [4, 'string'] },
  Int64Value: { value: [1, 'int64'] },
  SecurityProfile: { profileType: [1, 'int32'], localhostRef: [2, 'string'] },
  LinuxSandboxSecurityContext: {
    namespaceOptions: [1, 'NamespaceOption'], runAsUser: [3, 'Int64Value'], readonlyRootfs: [4, 'bool'], supplementalGroups: [5, 'int64', 'repeated'],
    privileged: [6, 'bool'], runAsGroup: [8, 'Int64Value'], seccomp: [9, 'SecurityProfile'],
  },
  LinuxPodSandboxConfig: { cgroupParent: [1, 'string'], securityContext: [2, 'LinuxSandboxSecurityContext'], sysctls: stringMap(3) },
  PodSandboxMetadata: { name: [1, 'string'], uid: [2, 'string'], namespace: [3, 'string'], attempt: [4, 'uint32'] },
  PodSandboxConfig: {
    metadata: [1, 'PodSandboxMetadata'], hostname: [2, 'string'], logDirectory: [3, 'string'], dnsConfig: [4, 'DNSConfig'],
    portMappings: [5, 'PortMapping', 'repeated'], labels: stringMap(6), annotations: stringMap(7), linux: [8, 'LinuxPodSandboxConfig'],
  },
  RunPodSandboxRequest: { config: [1, 'PodSandboxConfig'], runtimeHandler: [2, 'string'] },
  RunPodSandboxResponse: { podSandboxId: [1, 'string'] },
  StopPodSandboxRequest: { podSandboxId: [1, 'string'] },
  StopPodSandboxResponse: {},
  RemovePodSandboxRequest: { podSandboxId: [1, 'string'] },
  RemovePodSandboxResponse: {},
  PodSandboxStatusRequest: { podSandboxId: [1, 'string'], verbose: [2, 'bool'] },
  PodIP: { ip: [1, 'string'] },
  PodSandboxNetworkStatus: { ip: [1, 'string'], additionalIps: [2, 'PodIP', 'repeated'] },
  PodSandboxStatus: {
    id: [1, 'string'], metadata: [2, 'PodSandboxMetadata'], state: [3, 'int32'], createdAt: [4, 'int64'],
    network: [5, 'PodSandboxNetworkStatus'], labels: stringMap(7), annotations: stringMap(8), runtimeHandler: [9, 'string'],
  },
  PodSandboxStatusResponse: { status: [1, 'PodSandboxStatus'], info: stringMap(2) },
  PodSandboxStateValue: { state: [1, 'int32'] },
  PodSandboxFilter: { id: [1, 'string'], state: [2, 'PodSandboxStateValue'], labelSelector: stringMap(3) },
  ListPodSandboxRequest: { filter: [1, 'PodSandboxFilter'] },
  PodSandbox: {
    id: [1, 'string'], metadata: [2, 'PodSandboxMetadata'], state: [3, 'int32'], createdAt: [4, 'int64'],
    labels: stringMap(5), annotations: stringMap(6), runtimeHandler: [7, 'string'],
  },
  ListPodSandboxResponse: { items: [1, 'PodSandbox', 'repeated'] },
  ImageSpec: { image: [1, 'string'], annotations: stringMap(2) },
  KeyValue: { key: [1, 'string'], value: [2, 'string'] },
  LinuxContainerResources: {
    cpuPeriod: [1, 'int64'], cpuQuota: [2, 'int64'], cpuShares: [3, 'int64'], memoryLimitInBytes: [4, 'int64'],
    oomScoreAdj: [5, 'int64'], cpusetCpus: [6, 'string'], cpusetMems: [7, 'string'], unified: stringMap(9), memorySwapLimitInBytes: [10, 'int64'],
  },
  Capability: { addCapabilities: [1, 'string', 'repeated'], dropCapabilities: [2, 'string', 'repeated'] },
  LinuxContainerSecurityContext: {
    capabilities: [1, 'Capability'], privileged: [2, 'bool'], namespaceOptions: [3, 'NamespaceOption'], runAsUser: [5, 'Int64Value'],
    runAsUsername: [6, 'string'], readonlyRootfs: [7, 'bool'], supplementalGroups: [8, 'int64', 'repeated'], noNewPrivs: [11, 'bool'],
    runAsGroup: [12, 'Int64Value'], maskedPaths: [13, 'string', 'repeated'], readonlyPaths: [14, 'string', 'repeated'], seccomp: [15, 'SecurityProfile'],
  },
  LinuxContainerConfig: { resources: [1, 'LinuxContainerResources'], securityContext: [2, 'LinuxContainerSecurityContext'] },
  ContainerMetadata: { name: [1, 'string'], attempt: [2, 'uint32'] },
  ContainerConfig: {
    metadata: [1, 'ContainerMetadata'], image: [2, 'ImageSpec'], command: [3, 'string', 'repeated'], args: [4, 'string', 'repeated'],
    workingDir: [5, 'string'], envs: [6, 'KeyValue', 'repeated'], mounts: [7, 'Mount', 'repeated'], labels: stringMap(9), annotations: stringMap(10),
    logPath: [11, 'string'], stdin: [12, 'bool'], stdinOnce: [13, 'bool'], tty: [14, 'bool'], linux: [15, 'LinuxContainerConfig'],
  },
  CreateContainerRequest: { podSandboxId: [1, 'string'], config: [2, 'ContainerConfig'], sandboxConfig: [3, 'PodSandboxConfig'] },
  CreateContainerResponse: { containerId: [1, 'string'] },
  StartContainerRequest: { containerId: [1, 'string'] },
  StartContainerResponse: {},
  StopContainerRequest: { containerId: [1, 'string'], timeout: [2, 'int64'] },
  StopContainerResponse: {},
  RemoveContainerRequest: { containerId: [1, 'string'] },
  RemoveContainerResponse: {},
  ContainerStateValue: { state: [1, 'int32'] },
  ContainerFilter: { id: [1, 'string'], state: [2, 'ContainerStateValue'], podSandboxId: [3, 'string'], labelSelector: stringMap(4) },
  ListContainersRequest: { filter: [1, 'ContainerFilter'] },
  Container: {
    id: [1, 'string'], podSandboxId: [2, 'string'], metadata: [3, 'ContainerMetadata'], image: [4, 'ImageSpec'], imageRef: [5, 'string'],
    state: [6, 'int32'], createdAt: [7, 'int64'], labels: stringMap(8), annotations: stringMap(9),
  },
  ListContainersResponse: { containers: [1, 'Container', 'repeated'] },
  // the PLEG's relist reads only each container's id and state: the rest (labels, annotations, image) is skipped undecoded
  ContainerIdState: { id: [1, 'string'], state: [6, 'int32'] },
  ListContainerStatesResponse: { containers: [1, 'ContainerIdState', 'repeated'] },
  ContainerStatusRequest: { containerId: [1, 'string'], verbose: [2, 'bool'] },
  ContainerStatus: {
    id: [1, 'string'], metadata: [2, 'ContainerMetadata'], state: [3, 'int32'], createdAt: [4, 'int64'], startedAt: [5, 'int64'],
    finishedAt: [6, 'int64'], exitCode: [7, 'int32'], image: [8, 'ImageSpec'], imageRef: [9, 'string'], reason: [10, 'string'],
    message: [11, 'string'], labels: stringMap(12), annotations: stringMap(13), mounts: [14, 'Mount', 'repeated'], logPath: [15, 'string'],
  },
  ContainerStatusResponse: { status: [1, 'ContainerStatus'], info: stringMap(2) },
  ExecSyncRequest: { containerId: [1, 'string'], cmd: [2, 'string', 'repeated'], timeout: [3, 'int64'] },
  ExecSyncResponse: { stdout: [1, 'bytes'], stderr: [2, 'bytes'], exitCode: [3, 'int32'] },
  ExecRequest: { containerId: [1, 'string'], cmd: [2, 'string', 'repeated'], tty: [3, 'bool'], stdin: [4, 'bool'], stdout: [5, 'bool'], stderr: [6, 'bool'] },
  ExecResponse: { url: [1, 'string'] },
  AttachRequest: { containerId: [1, 'string'], stdin: [2, 'bool'], tty: [3, 'bool'], stdout: [4, 'bool'], stderr: [5, 'bool'] },
  AttachResponse: { url: [1, 'string'] },
  PortForwardRequest: { podSandboxId: [1, 'string'], port: [2, 'int32', 'repeated'] },
  PortForwardResponse: { url: [1, 'string'] },
  ContainerStatsFilter: { id: [1, 'string'], podSandboxId: [2, 'string'], labelSelector: stringMap(3) },
  ListContainerStatsRequest: { filter: [1, 'ContainerStatsFilter'] },
  ContainerAttributes: { id: [1, 'string'], metadata: [2, 'ContainerMetadata'], labels: stringMap(3), annotations: stringMap(4) },
  CpuUsage: { timestamp: [1, 'int64'], usageCoreNanoSeconds: [2, 'UInt64Value'], usageNanoCores: [3, 'UInt64Value'] },
  MemoryUsage: {
    timestamp: [1, 'int64'], workingSetBytes: [2, 'UInt64Value'], availableBytes: [3, 'UInt64Value'], usageBytes: [4, 'UInt64Value'],
    rssBytes: [5, 'UInt64Value'], pageFaults: [6, 'UInt64Value'], majorPageFaults: [7, 'UInt64Value'],
  },
  ContainerStats: { attributes: [1, 'ContainerAttributes'], cpu: [2, 'CpuUsage'], memory: [3, 'MemoryUsage'] },
  ListContainerStatsResponse: { stats: [1, 'ContainerStats', 'repeated'] },
  RuntimeCondition: { type: [1, 'string'], status: [2, 'bool'], reason: [3, 'string'], message: [4, 'string'] },
  RuntimeStatus: { conditions: [1, 'RuntimeCondition', 'repeated'] },
  StatusRequest: { verbose: [1, 'bool'] },
  StatusResponse: { status: [1, 'RuntimeStatus'], info: stringMap(2) },
  NetworkConfig: { podCidr: [1, 'string'] },
  RuntimeConfig: { networkConfig: [1, 'NetworkConfig'] },
  UpdateRuntimeConfigRequest: { runtimeConfig: [1, 'RuntimeConfig'] },
  UpdateRuntimeConfigResponse: {},
  ImageFilter: { image: [1, 'ImageSpec'] },
  ListImagesRequest: { filter: [1, 'ImageFilter'] },
  Image: {
    id: [1, 'string'], repoTags: [2, 'string', 'repeated'], repoDigests: [3, 'string', 'repeated'], size: [4, 'uint64'],
    uid: [5, 'Int64Value'], username: [6, 'string'], spec: [7, 'ImageSpec'], pinned: [8, 'bool'],
  },
  ListImagesResponse: { images: [1, 'Image', 'repeated'] },
  ImageStatusRequest: { image: [1, 'ImageSpec'], verbose: [2, 'bool'] },
  ImageStatusResponse: { image: [1, 'Image'], info: stringMap(2) },
  AuthConfig: {
    username: [1, 'string'], password: [2, 'string'], auth: [3, 'string'], serverAddress: [4, 'string'],
    identityToken: [5, 'string'], registryToken: [6, 'string'],
  },
  PullImageRequest: { image: [1, 'ImageSpec'], auth: [2, 'AuthConfig'], sandboxConfig: [3, 'PodSandboxConfig'] },
  PullImageResponse: { imageRef: [1, 'string'] },
  RemoveImageRequest: { image: [1, 'ImageSpec'] },
  RemoveImageResponse: {},
  ReopenContainerLogRequest: { containerId: [1, 'string'] },
  ReopenContainerLogResponse: {},
  ImageFsInfoRequest: {},
  UInt64Value: { value: [1, 'uint64'] },
  FilesystemIdentifier: { mountpoint: [1, 'string'] },
  FilesystemUsage: { timestamp: [1, 'int64'], fsId: [2, 'FilesystemIdentifier'], usedBytes: [3, 'UInt64Value'], inodesUsed: [4, 'UInt64Value'] },
  ImageFsInfoResponse: { imageFilesystems: [1, 'FilesystemUsage', 'repeated'] },
};

function toJson(fields: Fields): Record<string, protobuf.IField> {
  const out: Record<string, protobuf.IField & { keyType?: string }> = {};
  for (const [name, [id, type, rule]] of Object.entries(fields)) {
    out[name] = rule === 'map' ? { id, type, keyType: 'string' } : rule === 'repeated' ? { id, type, rule } : { id, type };
  }
  return out;
}

const root = protobuf.Root.fromJSON({
  nested: { runtime: { nested: { v1: { nested: Object.fromEntries(Object.entries(messages).map(([n, f]) => [n, { fields: toJson(f) }])) } } } },
});

/** Encodes and decodes one CRI message type; decoded int64s are numbers (ns timestamps lose sub-µs precision, which nothing needs). */
export interface CriCodec {
  encode(value: object): Buffer;
  decode(bytes: Buffer): Record<string, unknown>;
}

const codecs = new Map<string, CriCodec>();

export type CriMessageName = keyof typeof messages;

export function criCodec(name: CriMessageName): CriCodec {
  let c = codecs.get(name);
  if (!c) {
    const type = root.lookupType(`runtime.v1.${name}`);
    c = {
      encode: (value) => Buffer.from(type.encode(type.fromObject(value)).finish()),
      decode: (bytes) => type.toObject(type.decode(bytes), { longs: Number, bytes: Buffer, defaults: true, arrays: true, objects: true }),
    };
    codecs.set(name, c);
  }
  return c;
}
