import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { maxSurge } from './fenceposts.js';
import { activeReplicaSets, bySizeNewer, bySizeOlder, oldestFirst, specReplicas } from './replica-set-counts.js';
import { desiredReplicasOf, maxReplicasOf } from './revision.js';
import { isRollingUpdate } from './fenceposts.js';

export type ScaleFunc = (rs: ReplicaSet, replicas: number) => Promise<boolean>;

/** How much of `toAdd` falls to `rs`: its share of the new size, given what it was sized for (max-replicas). */
function proportion(d: Deployment, rs: ReplicaSet, toAdd: number, added: number): number {
  const size = rs.spec?.replicas ?? 0;
  if (size === 0 || toAdd === 0 || toAdd === added) return 0;
  let fraction: number;
  const replicas = d.spec?.replicas ?? 1;
  if (replicas === 0) fraction = -size;
  else {
    const annotated = maxReplicasOf(rs) ?? d.status?.replicas ?? 0;
    // Go's math.Round: halves away from zero.
    const target = annotated === 0 ? size : (size * (replicas + maxSurge(d))) / annotated;
    fraction = Math.sign(target) * Math.round(Math.abs(target)) - size;
  }
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** True when the new ReplicaSet runs the full, available size. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  const replicas = d.spec?.replicas ?? 1;
  return !!rs && desiredReplicasOf(rs) === replicas && (rs.spec?.replicas ?? 0) === replicas && (rs.status?.availableReplicas ?? 0) === replicas;
}

/**
 * Upstream's `scale`: resizes the ReplicaSets of a Deployment whose replicas
 * changed. With one active ReplicaSet it takes the whole size; during a
 * rolling update the difference is spread in proportion to their sizes.
 */
export async function scaleDeployment(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[], scale: ScaleFunc): Promise<void> {
  const replicas = d.spec?.replicas ?? 1;
  const active = activeReplicaSets([...oldRSs, newRS]);
  const only = active.length === 1 ? active[0] : active.length === 0 ? (newRS ?? [...oldRSs].sort(oldestFirst).at(-1)) : undefined;
  if (only) {
    if ((only.spec?.replicas ?? 0) !== replicas) await scale(only, replicas);
    return;
  }
  if (active.length === 0) return;
  if (isSaturated(d, newRS)) {
    for (const rs of activeReplicaSets(oldRSs)) await scale(rs, 0);
    return;
  }
  if (!isRollingUpdate(d)) return;
  const allowed = replicas > 0 ? replicas + maxSurge(d) : 0;
  const toAdd = allowed - specReplicas(active);
  const sorted = [...active].sort(toAdd > 0 ? bySizeNewer : bySizeOlder);
  const sizes = new Map<ReplicaSet, number>();
  let added = 0;
  for (const rs of sorted) {
    const p = toAdd !== 0 ? proportion(d, rs, toAdd, added) : 0;
    sizes.set(rs, (rs.spec?.replicas ?? 0) + p);
    added += p;
  }
  for (const [i, rs] of sorted.entries()) {
    let size = sizes.get(rs) ?? 0;
    // The largest takes the rounding leftover.
    if (i === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
    await scale(rs, size);
  }
}
