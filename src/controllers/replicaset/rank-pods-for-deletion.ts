import type { Pod } from 'kubernetes-types/core/v1.js';
import { isPodReady, podReadyCondition } from '../pod-readiness.js';

export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function time(s: string | undefined): number | undefined {
  const t = s ? Date.parse(s) : NaN;
  return Number.isFinite(t) ? t : undefined;
}

function restarts(pod: Pod): number {
  return Math.max(0, ...(pod.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
}

function deletionCost(pod: Pod): number {
  const v = Number(pod.metadata?.annotations?.[POD_DELETION_COST]);
  return Number.isInteger(v) ? v : 0;
}

/** Compares optional times: unknown first, then newer first. */
function newerFirst(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  return b - a;
}

/**
 * Chooses `count` of `pods` to delete, most expendable first, in upstream's
 * order (ActivePodsWithRanks): unscheduled before scheduled; Pending before
 * Unknown before Running; not ready before ready; lower pod-deletion-cost
 * first; pods sharing a node with more of `related` first; ready for less
 * time first; more container restarts first; newer first.
 */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], count: number): Pod[] {
  if (count >= pods.length) return [...pods];
  const perNode = new Map<string, number>();
  for (const p of related) {
    const node = p.spec?.nodeName;
    if (node && !p.metadata?.deletionTimestamp) perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  const rank = (p: Pod): number => (p.spec?.nodeName ? (perNode.get(p.spec.nodeName) ?? 0) : 0);
  const compare = (a: Pod, b: Pod): number => {
    const an = a.spec?.nodeName ? 1 : 0;
    const bn = b.spec?.nodeName ? 1 : 0;
    if (an !== bn) return an - bn;
    const ap = PHASE_RANK[a.status?.phase ?? ''] ?? 0;
    const bp = PHASE_RANK[b.status?.phase ?? ''] ?? 0;
    if (ap !== bp) return ap - bp;
    const ar = isPodReady(a) ? 1 : 0;
    const br = isPodReady(b) ? 1 : 0;
    if (ar !== br) return ar - br;
    if (deletionCost(a) !== deletionCost(b)) return deletionCost(a) - deletionCost(b);
    if (rank(a) !== rank(b)) return rank(b) - rank(a);
    if (ar === 1) {
      const byReady = newerFirst(time(podReadyCondition(a)?.lastTransitionTime), time(podReadyCondition(b)?.lastTransitionTime));
      if (byReady !== 0) return byReady;
    }
    if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
    return newerFirst(time(a.metadata?.creationTimestamp), time(b.metadata?.creationTimestamp));
  };
  return [...pods].sort(compare).slice(0, count);
}
