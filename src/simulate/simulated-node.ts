import type { Node, NodeCondition, NodeStatus, Taint } from 'kubernetes-types/core/v1.js';
import { rfc3339 } from '../base/clock.js';

/** The label every simulated node carries (kwok's `type=kwok`). */
export const SIMULATED_LABEL = 'node.skiff.dev/simulated';
/** Annotate a simulated Node with `node.skiff.dev/heartbeat=stopped` to simulate its failure (no Lease, no status, pods left as they are). */
export const HEARTBEAT_ANNOTATION = 'node.skiff.dev/heartbeat';
export const HEARTBEAT_STOPPED = 'stopped';

/** What the simulated kubelets report; kwok's defaults for capacity. */
export interface SimulatedNodeShape {
  /** Node names are `<prefix><index>`. */
  prefix: string;
  /** Zones the nodes are spread over, round robin (topology.kubernetes.io/zone). */
  zones: readonly string[];
  capacity: Record<string, string>;
  taints: readonly Taint[];
}

export const DEFAULT_SHAPE: SimulatedNodeShape = {
  prefix: 'sim-',
  zones: ['sim-zone-a', 'sim-zone-b', 'sim-zone-c'],
  capacity: { cpu: '32', memory: '256Gi', pods: '110', 'ephemeral-storage': '1Ti' },
  taints: [],
};

export const SIMULATED_KUBELET_VERSION = 'v1.32.0-skiff-simulated';

/** The node's address: 172.16.0.0/12, one per node (nothing listens there). */
export function nodeAddress(index: number): string {
  const n = index + 1;
  return `172.${16 + ((n >> 16) & 15)}.${(n >> 8) & 255}.${n & 255}`;
}

/** The node's fake pod range, a /24 of 10.128.0.0/9 (independent of the node IPAM controller, which runs out at 256 nodes). */
export function podAddress(index: number, host: number): string {
  return `10.${128 + ((index >> 8) & 127)}.${index & 255}.${host}`;
}

export function nodeLabels(name: string, index: number, shape: SimulatedNodeShape): Record<string, string> {
  const zone = shape.zones[index % shape.zones.length];
  return {
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'beta.kubernetes.io/arch': 'amd64',
    'node.kubernetes.io/instance-type': 'simulated',
    'topology.kubernetes.io/region': 'sim',
    ...(zone ? { 'topology.kubernetes.io/zone': zone } : {}),
    [SIMULATED_LABEL]: 'true',
  };
}

/** The Node a simulated kubelet registers (NodeRestriction allows these labels and taints at creation). */
export function simulatedNode(name: string, index: number, shape: SimulatedNodeShape): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: nodeLabels(name, index, shape), annotations: { 'node.alpha.kubernetes.io/ttl': '0' } },
    spec: shape.taints.length ? { taints: shape.taints.map((t) => ({ ...t })) } : {},
  };
}

const CONDITIONS: readonly Omit<NodeCondition, 'lastHeartbeatTime' | 'lastTransitionTime'>[] = [
  { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
  { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
  { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
  { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
];

/** A healthy node's status at `nowMs`, keeping each condition's transition time when its status did not change. */
export function simulatedNodeStatus(name: string, index: number, shape: SimulatedNodeShape, previous: NodeStatus | undefined, nowMs: number): NodeStatus {
  const ts = rfc3339(nowMs);
  return {
    capacity: { ...shape.capacity },
    allocatable: { ...shape.capacity },
    conditions: CONDITIONS.map((c) => {
      const old = previous?.conditions?.find((p) => p.type === c.type);
      return { ...c, lastHeartbeatTime: ts, lastTransitionTime: old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : ts };
    }),
    addresses: [
      { type: 'InternalIP', address: nodeAddress(index) },
      { type: 'Hostname', address: name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: `sim${index}`,
      systemUUID: `sim${index}`,
      bootID: `sim${index}`,
      kernelVersion: 'simulated',
      osImage: 'skiff simulated node',
      containerRuntimeVersion: 'simulated://1.0.0',
      kubeletVersion: SIMULATED_KUBELET_VERSION,
      kubeProxyVersion: SIMULATED_KUBELET_VERSION,
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

/** `key[=value]:Effect,...` as the kubelet's --register-with-taints. */
export function parseTaints(spec: string): Taint[] {
  return spec.split(',').map((s) => s.trim()).filter(Boolean).map((part) => {
    const m = /^([^=:]+)(?:=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(part);
    if (!m) throw new RangeError(`invalid taint ${JSON.stringify(part)}, want key[=value]:NoSchedule|PreferNoSchedule|NoExecute`);
    return m[2] ? { key: m[1], value: m[2], effect: m[3] } : { key: m[1], effect: m[3] };
  });
}

/** `name=quantity,...` overriding the default capacity. */
export function parseCapacity(spec: string, base: Record<string, string>): Record<string, string> {
  const out = { ...base };
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const i = part.indexOf('=');
    if (i <= 0) throw new RangeError(`invalid capacity ${JSON.stringify(part)}, want name=quantity`);
    out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}
