import type { Pod } from 'kubernetes-types/core/v1.js';

export function isPodTerminating(pod: Pod): boolean {
  return Boolean(pod.metadata?.deletionTimestamp);
}

export function isPodFinished(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** Running with Ready=True: what OrderedReady waits for before the next ordinal. */
export function isPodRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** metav1.Time: RFC 3339 in whole seconds. */
export function metaTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A pod as PodExpectations sees it in the cache. */
export function cachedPodState(pod: Pod | undefined): 'absent' | 'present' | 'deleting' {
  if (!pod) return 'absent';
  return pod.metadata?.deletionTimestamp ? 'deleting' : 'present';
}
