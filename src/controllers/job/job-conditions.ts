import type { Job, JobCondition, JobStatus } from 'kubernetes-types/batch/v1.js';
import { metaTime } from '../history/pod-state.js';

export type JobConditionType = 'Complete' | 'Failed' | 'SuccessCriteriaMet' | 'FailureTarget' | 'Suspended';

/** Upstream's JobReason* values and messages for the conditions this controller sets. */
export const JobReasons = {
  completionsReached: { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
  backoffLimitExceeded: { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
  deadlineExceeded: { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' },
  maxFailedIndexesExceeded: { reason: 'MaxFailedIndexesExceeded', message: 'Job has exceeded the specified maximal number of failed indexes' },
  failedIndexes: { reason: 'FailedIndexes', message: 'Job has failed indexes' },
  suspended: { reason: 'JobSuspended', message: 'Job suspended' },
  resumed: { reason: 'JobResumed', message: 'Job resumed' },
} as const;

export function jobCondition(status: JobStatus | Job['status'] | undefined, type: JobConditionType): JobCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

export function hasTrueCondition(status: JobStatus | undefined, type: JobConditionType): boolean {
  return jobCondition(status, type)?.status === 'True';
}

/** A Job with Complete or Failed true is finished and never changes again. */
export function isJobFinished(job: Job): boolean {
  return hasTrueCondition(job.status, 'Complete') || hasTrueCondition(job.status, 'Failed');
}

/**
 * Sets a condition in place; the transition time moves only when the status
 * does. Returns true if anything changed.
 */
export function setJobCondition(status: JobStatus, type: JobConditionType, value: 'True' | 'False', reason: string, message: string, now: number): boolean {
  const conditions = (status.conditions ??= []);
  const existing = conditions.find((c) => c.type === type);
  if (existing && existing.status === value && existing.reason === reason && existing.message === message) return false;
  const time = metaTime(now);
  const next: JobCondition = {
    type,
    status: value,
    reason,
    message,
    lastProbeTime: time,
    lastTransitionTime: existing && existing.status === value ? existing.lastTransitionTime : time,
  };
  if (existing) conditions[conditions.indexOf(existing)] = next;
  else conditions.push(next);
  return true;
}
