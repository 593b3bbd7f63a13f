import type { Pod } from 'kubernetes-types/core/v1.js';

/** Running with a Ready=True condition. */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Ready for at least minReadySeconds (upstream's podutil.IsPodAvailable). */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const since = ready?.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= now;
}

export function isPodTerminating(pod: Pod): boolean {
  return Boolean(pod.metadata?.deletionTimestamp);
}

export function isPodFinished(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** The pod is controlled (controller=true owner reference) by the object with `uid`. */
export function isControlledBy(obj: { metadata?: { ownerReferences?: { uid: string; controller?: boolean }[] } }, uid: string | undefined): boolean {
  return uid !== undefined && (obj.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid);
}

/** metav1.Time: RFC 3339 in whole seconds. */
export function metaTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
