import type { Node, NodeCondition, NodeStatus, Taint } from 'kubernetes-types/core/v1.js';
import { Quantity } from '../../machinery/quantity.js';
import type { MachineInfo } from './machine-info.js';

export const KUBELET_VERSION = 'v1.32.0-skiff';

export interface NodeConfig {
  nodeName: string;
  labels: Record<string, string>;
  taints: Taint[];
  /** Resource → quantity reserved for system daemons and the kubelet together. */
  reserved: Record<string, string>;
  maxPods: number;
  kubeletPort: number;
  runtimeVersion: string;
  podCIDR?: string;
  /** Extra note for Ready (e.g. the runtime degraded to plain processes). */
  readyMessage?: string;
}

/** Parses `cpu=100m,memory=100Mi` (the --system-reserved / --kube-reserved syntax). */
export function parseResourceList(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of s.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [k, v] = part.split('=');
    if (!k || !v) throw new RangeError(`invalid resource reservation ${JSON.stringify(part)}, want name=quantity`);
    Quantity.parse(v);
    out[k] = v;
  }
  return out;
}

/** Adds two reservation lists. */
export function addResourceLists(a: Record<string, string>, b: Record<string, string>): Record<string, string> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = out[k] ? Quantity.parse(out[k]).add(Quantity.parse(v)).toString() : v;
  return out;
}

/** Parses `key=value:Effect` taints (the --register-with-taints syntax). */
export function parseTaints(s: string): Taint[] {
  return s.split(',').map((p) => p.trim()).filter(Boolean).map((p) => {
    const m = /^([^=:]+)(?:=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(p);
    if (!m) throw new RangeError(`invalid taint ${JSON.stringify(p)}, want key[=value]:Effect`);
    return { key: m[1], ...(m[2] ? { value: m[2] } : {}), effect: m[3] };
  });
}

export function capacity(info: MachineInfo, maxPods: number): Record<string, string> {
  return {
    cpu: String(info.cpus),
    memory: `${Math.floor(info.memoryBytes / 1024)}Ki`,
    'ephemeral-storage': `${Math.floor(info.fsBytes / 1024)}Ki`,
    pods: String(maxPods),
  };
}

/** Capacity minus reservations, never below zero. */
export function allocatable(cap: Record<string, string>, reserved: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(cap)) {
    const r = reserved[k];
    if (!r) {
      out[k] = v;
      continue;
    }
    const left = Quantity.parse(v).sub(Quantity.parse(r));
    out[k] = left.sign() < 0 ? '0' : left.toString();
  }
  return out;
}

function condition(type: string, pressure: boolean, reasons: [string, string, string, string]): Omit<NodeCondition, 'lastHeartbeatTime' | 'lastTransitionTime'> {
  return pressure
    ? { type, status: 'True', reason: reasons[2], message: reasons[3] }
    : { type, status: 'False', reason: reasons[0], message: reasons[1] };
}

/** The pressure conditions that are True (the eviction manager's view); absent ones are False. */
export type NodePressure = ReadonlySet<'MemoryPressure' | 'DiskPressure' | 'PIDPressure'>;

/**
 * The node's conditions: pressure as the eviction manager sees it, Ready
 * while the kubelet posts. Transition times carry over from `previous` while
 * a condition's status stays the same.
 */
export function nodeConditions(config: NodeConfig, previous: readonly NodeCondition[], now: Date, pressure: NodePressure = new Set()): NodeCondition[] {
  const fresh = [
    condition('MemoryPressure', pressure.has('MemoryPressure'), ['KubeletHasSufficientMemory', 'kubelet has sufficient memory available', 'KubeletHasInsufficientMemory', 'kubelet has insufficient memory available']),
    condition('DiskPressure', pressure.has('DiskPressure'), ['KubeletHasNoDiskPressure', 'kubelet has no disk pressure', 'KubeletHasDiskPressure', 'kubelet has disk pressure']),
    condition('PIDPressure', pressure.has('PIDPressure'), ['KubeletHasSufficientPID', 'kubelet has sufficient PID available', 'KubeletHasInsufficientPID', 'kubelet has insufficient PID available']),
    { type: 'Ready', status: 'True', reason: 'KubeletReady', message: config.readyMessage ? `kubelet is posting ready status. ${config.readyMessage}` : 'kubelet is posting ready status' },
  ];
  const ts = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return fresh.map((c) => {
    const old = previous.find((p) => p.type === c.type);
    const lastTransitionTime = old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : ts;
    return { ...c, lastHeartbeatTime: ts, lastTransitionTime };
  });
}

export function nodeStatus(info: MachineInfo, config: NodeConfig, previous: NodeStatus | undefined, now: Date, pressure?: NodePressure): NodeStatus {
  const cap = capacity(info, config.maxPods);
  return {
    capacity: cap,
    allocatable: allocatable(cap, config.reserved),
    conditions: nodeConditions(config, previous?.conditions ?? [], now, pressure),
    addresses: [
      { type: 'InternalIP', address: info.internalIP },
      { type: 'Hostname', address: info.hostname },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: config.kubeletPort } },
    nodeInfo: {
      machineID: info.machineID,
      systemUUID: info.systemUUID,
      bootID: info.bootID,
      kernelVersion: info.kernelVersion,
      osImage: info.osImage,
      containerRuntimeVersion: config.runtimeVersion,
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: KUBELET_VERSION,
      operatingSystem: info.operatingSystem,
      architecture: info.architecture,
    },
    images: previous?.images ?? [],
  };
}

export function nodeLabels(info: MachineInfo, config: NodeConfig): Record<string, string> {
  return {
    'beta.kubernetes.io/arch': info.architecture,
    'beta.kubernetes.io/os': info.operatingSystem,
    'kubernetes.io/arch': info.architecture,
    'kubernetes.io/hostname': config.nodeName,
    'kubernetes.io/os': info.operatingSystem,
    ...config.labels,
  };
}

/** The Node object the kubelet registers. */
export function initialNode(info: MachineInfo, config: NodeConfig, now: Date, pressure?: NodePressure): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: config.nodeName, labels: nodeLabels(info, config), annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } },
    spec: { ...(config.taints.length ? { taints: config.taints } : {}), ...(config.podCIDR ? { podCIDR: config.podCIDR, podCIDRs: [config.podCIDR] } : {}) },
    status: nodeStatus(info, config, undefined, now, pressure),
  };
}

/** True if two statuses differ in more than heartbeat times (so the update is news). */
export function statusChanged(a: NodeStatus | undefined, b: NodeStatus): boolean {
  const strip = (s: NodeStatus | undefined) => JSON.stringify({ ...s, conditions: s?.conditions?.map((c) => ({ ...c, lastHeartbeatTime: undefined })) });
  return strip(a) !== strip(b);
}
