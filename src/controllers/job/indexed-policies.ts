import type { Job, SuccessPolicy } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseIndexes, podCompletionIndex } from './completion-index.js';
import { jobBackoffDelay } from './job-backoff.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';

/** How many counted (and policy-ignored) failures an index had before this pod (upstream's annotations). */
export const JOB_INDEX_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-failure-count';
export const JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-ignored-failure-count';

const MAX_INT32 = 2 ** 31 - 1;

/** An Indexed Job with `backoffLimitPerIndex`: failures are counted, and indexes fail, one index at a time. */
export function hasBackoffLimitPerIndex(job: Job): boolean {
  return job.spec?.completionMode === 'Indexed' && typeof job.spec.backoffLimitPerIndex === 'number';
}

function annotationCount(pod: Pod, key: string): number {
  const v = pod.metadata?.annotations?.[key];
  if (v === undefined || !/^\d+$/.test(v)) return 0;
  const n = Number(v);
  return n > MAX_INT32 ? 0 : n;
}

/** The pod's index failure count: failures of its index before it (0 when absent or malformed, as upstream). */
export function indexFailureCount(pod: Pod): number {
  return annotationCount(pod, JOB_INDEX_FAILURE_COUNT_ANNOTATION);
}

function absoluteFailureCount(pod: Pod): number {
  return indexFailureCount(pod) + annotationCount(pod, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION);
}

/**
 * Whether this failed pod fails its whole index: the pod failure policy says
 * FailIndex, or it was a counted failure of an index that had already failed
 * `backoffLimitPerIndex` times.
 */
export function isIndexFailed(job: Job, pod: Pod): boolean {
  const match = matchPodFailurePolicy(job.spec?.podFailurePolicy, pod);
  if (match?.action === 'FailIndex') return true;
  if (match?.action === 'Ignore') return false;
  return indexFailureCount(pod) >= (job.spec?.backoffLimitPerIndex ?? 0);
}

/** The annotations a replacement for `previous` (the index's last failed pod) carries. */
export function replacementFailureCounts(job: Job, previous: Pod | undefined): Record<string, string> {
  if (!previous) return { [JOB_INDEX_FAILURE_COUNT_ANNOTATION]: '0' };
  let counted = indexFailureCount(previous);
  let ignored = annotationCount(previous, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION);
  if (matchPodFailurePolicy(job.spec?.podFailurePolicy, previous)?.action === 'Ignore') ignored++;
  else counted++;
  return { [JOB_INDEX_FAILURE_COUNT_ANNOTATION]: String(counted), ...(ignored > 0 ? { [JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION]: String(ignored) } : {}) };
}

function finishedAt(pod: Pod): number {
  let latest = 0;
  for (const s of pod.status?.containerStatuses ?? []) {
    const t = Date.parse(s.state?.terminated?.finishedAt ?? '');
    if (Number.isFinite(t)) latest = Math.max(latest, t);
  }
  return latest || Date.parse(pod.metadata?.deletionTimestamp ?? pod.metadata?.creationTimestamp ?? '') || 0;
}

/** Per index, its most recent failed pod (the highest absolute failure count, then the latest to finish). */
export function lastFailedPodPerIndex(pods: readonly Pod[]): Map<number, Pod> {
  const out = new Map<number, Pod>();
  for (const pod of pods) {
    if (pod.status?.phase !== 'Failed') continue;
    const ix = podCompletionIndex(pod);
    if (ix === undefined) continue;
    const prev = out.get(ix);
    if (!prev || absoluteFailureCount(prev) < absoluteFailureCount(pod) || (absoluteFailureCount(prev) === absoluteFailureCount(pod) && finishedAt(pod) >= finishedAt(prev))) out.set(ix, pod);
  }
  return out;
}

/** Milliseconds before the index whose last failed pod is `last` may get a new pod (10 s doubling per failure, capped). */
export function indexBackoffRemaining(last: Pod | undefined, now: number): number {
  if (!last) return 0;
  return Math.max(0, finishedAt(last) + jobBackoffDelay(absoluteFailureCount(last) + 1) - now);
}

/**
 * Upstream's matchSuccessPolicy: the first rule whose `succeededIndexes` have
 * all succeeded (or at least `succeededCount` of them), or, without indexes,
 * whose `succeededCount` indexes have succeeded. Returns the condition's
 * message ("Matched rules at index <n>"), or undefined.
 */
export function matchSuccessPolicy(policy: SuccessPolicy | undefined, completions: number, succeeded: ReadonlySet<number>): string | undefined {
  if (!policy || succeeded.size === 0) return undefined;
  for (const [i, rule] of (policy.rules ?? []).entries()) {
    if (rule.succeededIndexes !== undefined && rule.succeededIndexes !== null) {
      const required = parseIndexes(rule.succeededIndexes, completions);
      if (required.size === 0) continue;
      let contained = 0;
      for (const ix of required) if (succeeded.has(ix)) contained++;
      if (contained === required.size || (typeof rule.succeededCount === 'number' && contained >= rule.succeededCount)) return `Matched rules at index ${i}`;
    } else if (typeof rule.succeededCount === 'number' && succeeded.size >= rule.succeededCount) {
      return `Matched rules at index ${i}`;
    }
  }
  return undefined;
}
