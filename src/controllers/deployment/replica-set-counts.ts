import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';

/** Sum of spec.replicas. */
export const specReplicas = (rss: readonly (ReplicaSet | undefined)[]) => rss.reduce((n, rs) => n + (rs?.spec?.replicas ?? 0), 0);
/** Sum of status.replicas. */
export const actualReplicas = (rss: readonly (ReplicaSet | undefined)[]) => rss.reduce((n, rs) => n + (rs?.status?.replicas ?? 0), 0);
export const readyReplicas = (rss: readonly (ReplicaSet | undefined)[]) => rss.reduce((n, rs) => n + (rs?.status?.readyReplicas ?? 0), 0);
export const availableReplicas = (rss: readonly (ReplicaSet | undefined)[]) => rss.reduce((n, rs) => n + (rs?.status?.availableReplicas ?? 0), 0);

/** ReplicaSets that want pods. */
export const activeReplicaSets = (rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] => rss.filter((rs): rs is ReplicaSet => !!rs && (rs.spec?.replicas ?? 0) > 0);

const created = (rs: ReplicaSet) => Date.parse(rs.metadata?.creationTimestamp ?? '') || 0;
const byName = (a: ReplicaSet, b: ReplicaSet) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1);

/** Oldest first (ties by name). */
export function oldestFirst(a: ReplicaSet, b: ReplicaSet): number {
  return created(a) - created(b) || byName(a, b);
}

/** Larger first, then newer first (scaling up gives to the newest). */
export function bySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  return (b.spec?.replicas ?? 0) - (a.spec?.replicas ?? 0) || created(b) - created(a) || byName(b, a);
}

/** Larger first, then older first (scaling down takes from the oldest). */
export function bySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  return (b.spec?.replicas ?? 0) - (a.spec?.replicas ?? 0) || oldestFirst(a, b);
}
