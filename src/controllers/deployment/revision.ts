import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { maxSurge } from './fenceposts.js';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';

/** Deployment annotations that are not copied onto its ReplicaSets. */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'deprecated.deployment.rollback.to',
]);

export function revisionOf(rs: ReplicaSet): number {
  const n = Number(rs.metadata?.annotations?.[REVISION_ANNOTATION]);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

export function maxRevision(rss: readonly ReplicaSet[]): number {
  return Math.max(0, ...rss.map(revisionOf));
}

function intAnnotation(rs: ReplicaSet, name: string): number | undefined {
  const v = rs.metadata?.annotations?.[name];
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) ? n : undefined;
}

export const desiredReplicasOf = (rs: ReplicaSet) => intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
export const maxReplicasOf = (rs: ReplicaSet) => intAnnotation(rs, MAX_REPLICAS_ANNOTATION);

/**
 * Sets desired-replicas and max-replicas on a ReplicaSet (mutating it);
 * true when they changed.
 */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = (rs.metadata!.annotations ??= {});
  const changed = a[DESIRED_REPLICAS_ANNOTATION] !== String(desired) || a[MAX_REPLICAS_ANNOTATION] !== String(max);
  a[DESIRED_REPLICAS_ANNOTATION] = String(desired);
  a[MAX_REPLICAS_ANNOTATION] = String(max);
  return changed;
}

/**
 * Upstream's SetNewReplicaSetAnnotations (mutating `rs`): copies the
 * Deployment's annotations, raises the revision to `newRevision` (keeping
 * the old one in revision-history when a rollback reuses a ReplicaSet), and
 * the replica annotations. True when anything changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean): boolean {
  const a = (rs.metadata!.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
    if (NOT_COPIED.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const old = revisionOf(rs);
  if (old < newRevision) {
    if (old > 0) a[REVISION_HISTORY_ANNOTATION] = a[REVISION_HISTORY_ANNOTATION] ? `${a[REVISION_HISTORY_ANNOTATION]},${old}` : String(old);
    a[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
  }
  // An existing ReplicaSet's replica annotations change only when it is scaled.
  if (!exists && setReplicasAnnotations(rs, d.spec?.replicas ?? 1, (d.spec?.replicas ?? 1) + maxSurge(d))) changed = true;
  return changed;
}
