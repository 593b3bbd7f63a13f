import type { Node, Taint } from 'kubernetes-types/core/v1.js';
import { formatTime } from '../../machinery/time.js';

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/** Upstream's nodeConditionToTaintKeyStatusMap: which condition status earns which NoSchedule taint. */
const CONDITION_TAINTS: { type: string; status: string; key: string }[] = [
  { type: 'Ready', status: 'False', key: TAINT_NOT_READY },
  { type: 'Ready', status: 'Unknown', key: TAINT_UNREACHABLE },
  { type: 'MemoryPressure', status: 'True', key: 'node.kubernetes.io/memory-pressure' },
  { type: 'DiskPressure', status: 'True', key: 'node.kubernetes.io/disk-pressure' },
  { type: 'NetworkUnavailable', status: 'True', key: 'node.kubernetes.io/network-unavailable' },
  { type: 'PIDPressure', status: 'True', key: 'node.kubernetes.io/pid-pressure' },
];
const MANAGED_NO_SCHEDULE = new Set([...CONDITION_TAINTS.map((c) => c.key), TAINT_UNSCHEDULABLE]);

/** The NoSchedule taints the node's conditions and `spec.unschedulable` call for (upstream's doNoScheduleTaintingPass). */
export function desiredNoScheduleTaints(node: Node): Taint[] {
  const out: Taint[] = [];
  for (const c of node.status?.conditions ?? []) {
    const hit = CONDITION_TAINTS.find((t) => t.type === c.type && t.status === c.status);
    if (hit) out.push({ key: hit.key, effect: 'NoSchedule' });
  }
  if (node.spec?.unschedulable) out.push({ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' });
  return out;
}

/** The node's taints with the controller-managed NoSchedule ones replaced by `desired`; undefined if unchanged. */
export function reconcileNoScheduleTaints(node: Node, desired: readonly Taint[]): Taint[] | undefined {
  const taints = node.spec?.taints ?? [];
  const keep = taints.filter((t) => !(t.effect === 'NoSchedule' && MANAGED_NO_SCHEDULE.has(t.key)) || desired.some((d) => d.key === t.key));
  const add = desired.filter((d) => !taints.some((t) => t.effect === 'NoSchedule' && t.key === d.key));
  if (add.length === 0 && keep.length === taints.length) return undefined;
  return [...keep, ...add];
}

/** The NoExecute taint a node's Ready status calls for, if any. */
export function noExecuteTaintKeyFor(ready: string): string | undefined {
  if (ready === 'False') return TAINT_NOT_READY;
  if (ready === 'Unknown') return TAINT_UNREACHABLE;
  return undefined;
}

export function hasNoExecuteTaint(node: Node, key: string): boolean {
  return (node.spec?.taints ?? []).some((t) => t.effect === 'NoExecute' && t.key === key);
}

/**
 * The node's taints with exactly `key` (or none) among the controller's
 * NoExecute taints; a newly added one is stamped with timeAdded, as upstream.
 * Undefined if unchanged.
 */
export function withNoExecuteTaint(node: Node, key: string | undefined, now: number): Taint[] | undefined {
  const taints = node.spec?.taints ?? [];
  const managed = (t: Taint): boolean => t.effect === 'NoExecute' && (t.key === TAINT_NOT_READY || t.key === TAINT_UNREACHABLE);
  const keep = taints.filter((t) => !managed(t) || t.key === key);
  const add: Taint[] = key && !keep.some((t) => managed(t) && t.key === key) ? [{ key, effect: 'NoExecute', timeAdded: formatTime(new Date(now)) }] : [];
  if (add.length === 0 && keep.length === taints.length) return undefined;
  return [...keep, ...add];
}
