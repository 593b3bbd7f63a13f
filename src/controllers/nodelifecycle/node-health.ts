import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, NodeCondition } from 'kubernetes-types/core/v1.js';
import { formatTime } from '../../machinery/time.js';

/** What the controller remembers of a node between passes (upstream's nodeHealthData). */
export interface NodeHealth {
  /** When the controller last saw a sign of life (a new heartbeat or lease renewal), in ms. */
  probeTimestamp: number;
  /** The Ready condition's lastHeartbeatTime seen then. */
  readyHeartbeat?: string;
  /** The Lease's renewTime seen then. */
  leaseRenewTime?: string;
}

export interface HealthTimeouts {
  gracePeriodMs: number;
  startupGracePeriodMs: number;
}

export interface HealthAssessment {
  health: NodeHealth;
  /** Ready's status after this pass: 'True', 'False' or 'Unknown'. */
  ready: string;
  /** The node's new conditions when the controller must write them (the kubelet went silent). */
  conditions?: NodeCondition[];
}

/** The conditions the kubelet owns; all turn Unknown when it stops posting. */
export const KUBELET_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

export function readyCondition(node: Node): NodeCondition | undefined {
  return node.status?.conditions?.find((c) => c.type === 'Ready');
}

/**
 * One pass of upstream's tryUpdateNodeHealth: a new Ready heartbeat or Lease
 * renewal moves the probe timestamp; a node silent for longer than the grace
 * period gets its kubelet-owned conditions set to Unknown.
 */
export function assessNodeHealth(node: Node, lease: Lease | undefined, saved: NodeHealth | undefined, now: number, t: HealthTimeouts): HealthAssessment {
  const ready = readyCondition(node);
  const heartbeat = ready?.lastHeartbeatTime;
  const renew = lease?.spec?.renewTime;
  let gracePeriod = t.gracePeriodMs;
  let health: NodeHealth;
  if (!ready) {
    // never posted: the startup grace period counts from the node's creation
    gracePeriod = t.startupGracePeriodMs;
    const created = Date.parse(node.metadata?.creationTimestamp ?? '') || now;
    health = { probeTimestamp: saved?.probeTimestamp ?? created, leaseRenewTime: renew };
  } else if (!saved || saved.readyHeartbeat !== heartbeat) {
    health = { probeTimestamp: now, readyHeartbeat: heartbeat, leaseRenewTime: saved?.leaseRenewTime ?? renew };
  } else {
    health = { ...saved };
  }
  if (renew && renew !== health.leaseRenewTime && (!health.leaseRenewTime || Date.parse(renew) > Date.parse(health.leaseRenewTime))) {
    health = { ...health, probeTimestamp: now, leaseRenewTime: renew };
  }
  if (now <= health.probeTimestamp + gracePeriod) return { health, ready: ready?.status ?? 'Unknown' };
  return { health, ready: 'Unknown', conditions: unknownConditions(node, now) };
}

/** The node's conditions with every kubelet-owned one Unknown; undefined when nothing changes. */
function unknownConditions(node: Node, now: number): NodeCondition[] | undefined {
  const stamp = formatTime(new Date(now));
  const existing = node.status?.conditions ?? [];
  let changed = false;
  const out = existing.map((c) => {
    if (!KUBELET_CONDITIONS.includes(c.type) || c.status === 'Unknown') return c;
    changed = true;
    return { ...c, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: stamp };
  });
  for (const type of KUBELET_CONDITIONS) {
    if (existing.some((c) => c.type === type)) continue;
    changed = true;
    out.push({ type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: node.metadata?.creationTimestamp, lastTransitionTime: stamp });
  }
  return changed ? out : undefined;
}
