import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { setPodTemplateDefaults } from './pod-spec.js';

const MAX_INT32 = 2147483647;

/** batch/v1 SetDefaults_Job. */
export function setJobDefaults(job: Job): void {
  const spec = (job.spec ??= { template: {} });
  // A non-parallel job may leave both unset; then both are 1.
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? MAX_INT32 : 6;
  // batch/v1 still copies template labels onto a Job that has none.
  const templateLabels = spec.template?.metadata?.labels;
  if (templateLabels && Object.keys(job.metadata?.labels ?? {}).length === 0) {
    job.metadata = { ...(job.metadata ?? {}), labels: { ...templateLabels } };
  }
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  for (const rule of spec.podFailurePolicy?.rules ?? []) {
    for (const pattern of rule.onPodConditions ?? []) pattern.status ||= 'True';
  }
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  setPodTemplateDefaults(spec.template);
}

/** batch/v1 SetDefaults_CronJob; the job template only gets pod-spec defaults, like upstream. */
export function setCronJobDefaults(cj: CronJob): void {
  const spec = (cj.spec ??= { schedule: '', jobTemplate: {} });
  spec.concurrencyPolicy ||= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  setPodTemplateDefaults(spec.jobTemplate?.spec?.template);
}

export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const LEGACY_JOB_NAME_LABEL = 'job-name';

/**
 * Upstream's job strategy generateSelector, run at create once the uid is
 * assigned, unless spec.manualSelector is true. Labels the user already set
 * are kept; a conflict then surfaces in validation as a selector mismatch.
 */
export function generateJobSelector(job: Job): void {
  const spec = job.spec;
  if (!spec || spec.manualSelector) return;
  const name = job.metadata?.name ?? '';
  const uid = job.metadata?.uid ?? '';
  const template = (spec.template ??= {});
  const meta = (template.metadata ??= {});
  const labels = (meta.labels ??= {});
  for (const k of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!(k in labels)) labels[k] = name;
  for (const k of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) if (!(k in labels)) labels[k] = uid;
  const selector = (spec.selector ??= {});
  const matchLabels = (selector.matchLabels ??= {});
  if (!(CONTROLLER_UID_LABEL in matchLabels)) matchLabels[CONTROLLER_UID_LABEL] = uid;
}
