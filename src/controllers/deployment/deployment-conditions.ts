import type { Deployment, DeploymentCondition, DeploymentStatus } from 'kubernetes-types/apps/v1.js';

export const PROGRESSING = 'Progressing';
export const AVAILABLE = 'Available';

export const Reason = {
  NewReplicaSetCreated: 'NewReplicaSetCreated',
  FoundNewReplicaSet: 'FoundNewReplicaSet',
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  NewReplicaSetAvailable: 'NewReplicaSetAvailable',
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  FailedReplicaSetCreate: 'ReplicaSetCreateError',
  DeploymentPaused: 'DeploymentPaused',
  DeploymentResumed: 'DeploymentResumed',
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** metav1.Time: seconds precision. */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function newCondition(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string, now: number): DeploymentCondition {
  const t = timestamp(now);
  return { type, status, reason, message, lastUpdateTime: t, lastTransitionTime: t };
}

export function getCondition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/**
 * Sets a condition (mutating `status`) as upstream: an identical status and
 * reason is left alone; the same status keeps its lastTransitionTime.
 */
export function setCondition(status: DeploymentStatus, cond: DeploymentCondition): void {
  const current = getCondition(status, cond.type);
  if (current && current.status === cond.status && current.reason === cond.reason) return;
  if (current && current.status === cond.status) cond = { ...cond, lastTransitionTime: current.lastTransitionTime };
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== cond.type), cond];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  status.conditions = (status.conditions ?? []).filter((c) => c.type !== type);
}

export function hasProgressDeadline(d: Deployment): boolean {
  const s = d.spec?.progressDeadlineSeconds;
  return s !== undefined && s !== null && s < 2 ** 31 - 1;
}

/** Every replica updated and available, nothing old left, the latest spec observed. */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const replicas = d.spec?.replicas ?? 1;
  return (s.updatedReplicas ?? 0) === replicas && (s.replicas ?? 0) === replicas && (s.availableReplicas ?? 0) === replicas && (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);
}

/** The new status shows progress over the recorded one. */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld || (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

/** No progress for progressDeadlineSeconds since the Progressing condition last changed. */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(s, PROGRESSING);
  if (!c || c.reason === Reason.NewReplicaSetAvailable) return false;
  if (c.reason === Reason.ProgressDeadlineExceeded) return true;
  const from = Date.parse(c.lastUpdateTime ?? '');
  return Number.isFinite(from) && from + (d.spec?.progressDeadlineSeconds ?? 600) * 1000 < now;
}
