import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { maxSurge, maxUnavailable } from './fenceposts.js';
import { availableReplicas, oldestFirst, specReplicas } from './replica-set-counts.js';
import type { ScaleFunc } from './proportional-scale.js';

/** The size the new ReplicaSet may grow to now: up to replicas + maxSurge pods in all. */
export function newReplicaSetReplicas(d: Deployment, allRSs: readonly ReplicaSet[], newRS: ReplicaSet | undefined): number {
  const replicas = d.spec?.replicas ?? 1;
  if ((d.spec?.strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return replicas;
  const current = specReplicas(allRSs);
  const newSize = newRS?.spec?.replicas ?? 0;
  const maxTotal = replicas + maxSurge(d);
  if (current >= maxTotal) return newSize;
  return newSize + Math.min(maxTotal - current, replicas - newSize);
}

/** Scales the new ReplicaSet up (within the surge) or down to the Deployment's size. */
export async function reconcileNewReplicaSet(d: Deployment, allRSs: readonly ReplicaSet[], newRS: ReplicaSet, scale: ScaleFunc): Promise<boolean> {
  const replicas = d.spec?.replicas ?? 1;
  const size = newRS.spec?.replicas ?? 0;
  if (size === replicas) return false;
  if (size > replicas) return scale(newRS, replicas);
  return scale(newRS, newReplicaSetReplicas(d, allRSs, newRS));
}

/**
 * Scales old ReplicaSets down as far as availability allows: first their
 * unavailable pods (they cost no availability), then available ones down to
 * replicas - maxUnavailable available pods in all.
 */
export async function reconcileOldReplicaSets(d: Deployment, allRSs: readonly ReplicaSet[], oldRSs: ReplicaSet[], newRS: ReplicaSet, scale: ScaleFunc): Promise<boolean> {
  if (specReplicas(oldRSs) === 0) return false;
  const minAvailable = (d.spec?.replicas ?? 1) - maxUnavailable(d);
  const newUnavailable = (newRS.spec?.replicas ?? 0) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = specReplicas(allRSs) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;

  let cleaned = 0;
  for (const rs of [...oldRSs].sort(oldestFirst)) {
    if (cleaned >= maxScaledDown) break;
    const size = rs.spec?.replicas ?? 0;
    const available = rs.status?.availableReplicas ?? 0;
    if (size === 0 || size === available) continue;
    const down = Math.min(maxScaledDown - cleaned, size - available);
    await scale(rs, size - down);
    cleaned += down;
  }

  let scaledDown = 0;
  const available = availableReplicas([...oldRSs, newRS]);
  if (available > minAvailable) {
    const total = available - minAvailable;
    for (const rs of [...oldRSs].sort(oldestFirst)) {
      if (scaledDown >= total) break;
      const size = rs.spec?.replicas ?? 0;
      if (size === 0) continue;
      const down = Math.min(size, total - scaledDown);
      await scale(rs, size - down);
      scaledDown += down;
    }
  }
  return cleaned + scaledDown > 0;
}
