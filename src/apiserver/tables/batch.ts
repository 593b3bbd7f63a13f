import type { CronJob, Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import { humanDuration, parseTimestamp, translateTimestampSince } from './age.js';
import { AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, fieldColumn } from './columns.js';
import { boolPtr, containerCells } from './format.js';
import { formatLabelSelector } from '../../machinery/labels/index.js';
import { column, convertor } from './table-convertor.js';

/** Tables for the batch group: jobs and cron jobs. */

function hasJobCondition(conditions: JobCondition[] | undefined, type: string): boolean {
  // Like upstream, only the first condition of a type counts.
  const c = conditions?.find((x) => x.type === type);
  return c?.status === 'True';
}

/** `Complete`, `Failed`, `Terminating`, `Suspended`, `FailureTarget` or `Running`, in that precedence. */
export function jobStatus(job: Job): string {
  const conds = job.status?.conditions;
  if (hasJobCondition(conds, 'Complete')) return 'Complete';
  if (hasJobCondition(conds, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasJobCondition(conds, 'Suspended')) return 'Suspended';
  if (hasJobCondition(conds, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

/** `succeeded/completions`, or for work-queue jobs `n/1` (`n/1 of P` when parallel). */
export function jobCompletions(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  const completions = job.spec?.completions;
  if (completions !== undefined && completions !== null) return `${succeeded}/${completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** Time from start to completion, or to now while running; empty before it starts. */
export function jobDuration(job: Job, now: Date): string {
  const start = parseTimestamp(job.status?.startTime);
  if (start === undefined) return '';
  const end = parseTimestamp(job.status?.completionTime) ?? now.getTime();
  return humanDuration(end - start);
}

export const jobTable = convertor<Job>(
  [
    NAME_COLUMN,
    column('Status', 'string', 'Status of the job.'),
    fieldColumn('Completions', 'string', 'JobStatus.succeeded'),
    column('Duration', 'string', 'Time required to complete the job.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn('Selector', 'string', 'JobSpec.selector', 1),
  ],
  (job, now) => {
    const [names, images] = containerCells(job.spec?.template?.spec?.containers);
    return [
      job.metadata?.name ?? '',
      jobStatus(job),
      jobCompletions(job),
      jobDuration(job, now),
      translateTimestampSince(job.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(job.spec?.selector),
    ];
  },
);

export const cronJobTable = convertor<CronJob>(
  [
    NAME_COLUMN,
    fieldColumn('Schedule', 'string', 'CronJobSpec.schedule'),
    fieldColumn('Timezone', 'string', 'CronJobSpec.timeZone'),
    fieldColumn('Suspend', 'boolean', 'CronJobSpec.suspend'),
    fieldColumn('Active', 'integer', 'CronJobStatus.active'),
    fieldColumn('Last Schedule', 'string', 'CronJobStatus.lastScheduleTime'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    fieldColumn('Selector', 'string', 'JobSpec.selector', 1),
  ],
  (cj, now) => {
    const jobSpec = cj.spec?.jobTemplate?.spec;
    const [names, images] = containerCells(jobSpec?.template?.spec?.containers);
    const last = cj.status?.lastScheduleTime;
    return [
      cj.metadata?.name ?? '',
      cj.spec?.schedule ?? '',
      cj.spec?.timeZone ?? '<none>',
      boolPtr(cj.spec?.suspend),
      cj.status?.active?.length ?? 0,
      last ? translateTimestampSince(last, now) : '<none>',
      translateTimestampSince(cj.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(jobSpec?.selector),
    ];
  },
);
