import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { newControllerRef } from '../controller-ref.js';
import { formatRfc3339 } from './wall-clock.js';

export const CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

/** Upstream names a CronJob's Job after its scheduled time in minutes since the epoch, so a start is never run twice. */
export function jobNameFor(cronJobName: string, scheduledTime: number): string {
  return `${cronJobName}-${Math.floor(scheduledTime / 60_000)}`;
}

/** The Job a CronJob runs at `scheduledTime`: its jobTemplate, owned by the CronJob. */
export function newJobFromCronJob(cj: CronJob, scheduledTime: number): Job {
  const template = structuredClone(cj.spec?.jobTemplate ?? {});
  const timeZone = cj.spec?.timeZone ?? 'UTC';
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobNameFor(cj.metadata?.name ?? '', scheduledTime),
      namespace: cj.metadata?.namespace,
      labels: { ...(template.metadata?.labels ?? {}) },
      annotations: { ...(template.metadata?.annotations ?? {}), [CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]: formatRfc3339(scheduledTime, timeZone) },
      ownerReferences: [newControllerRef(cj, 'batch/v1', 'CronJob')],
    },
    spec: template.spec ?? { template: {} },
  };
}
