import type { Pod } from 'kubernetes-types/core/v1.js';
import { semanticEqual } from '../semantic-equal.js';
import { isPodAvailable, isPodReady } from '../pod-readiness.js';
import type { Replicated, ReplicatedStatus } from './replicated-kind.js';

/**
 * The status the replica controller reports for the active pods a
 * ReplicaSet or ReplicationController owns (upstream's calculateStatus),
 * keeping existing conditions.
 */
export function replicaSetStatus(rs: Replicated, pods: readonly Pod[], now: number): ReplicatedStatus {
  const templateLabels = rs.spec?.template?.metadata?.labels ?? {};
  const minReady = rs.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const p of pods) {
    const labels = p.metadata?.labels ?? {};
    if (Object.entries(templateLabels).every(([k, v]) => labels[k] === v)) fullyLabeled++;
    if (isPodReady(p)) {
      ready++;
      if (isPodAvailable(p, minReady, now)) available++;
    }
  }
  const status: ReplicatedStatus = {
    replicas: pods.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    observedGeneration: rs.metadata?.generation,
  };
  if (rs.status?.conditions?.length) status.conditions = rs.status.conditions;
  return status;
}

/** Same numbers, so no status write is needed. */
export function sameReplicaSetStatus(a: ReplicatedStatus | undefined, b: ReplicatedStatus): boolean {
  return (
    (a?.replicas ?? 0) === b.replicas &&
    (a?.fullyLabeledReplicas ?? 0) === (b.fullyLabeledReplicas ?? 0) &&
    (a?.readyReplicas ?? 0) === (b.readyReplicas ?? 0) &&
    (a?.availableReplicas ?? 0) === (b.availableReplicas ?? 0) &&
    a?.observedGeneration === b.observedGeneration &&
    semanticEqual(a?.conditions, b.conditions)
  );
}
