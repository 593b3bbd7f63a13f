import type { CronJob, Job, JobSpec, JobTemplateSpec } from 'kubernetes-types/batch/v1.js';
import { child, index, invalid, notSupported, required, tooMany, validateImmutableField, validateNonnegativeField, type ErrorList } from './errors.js';
import { cronScheduleError, isKnownTimeZone } from './cron-schedule.js';
import { selectorMatches, validateLabelSelector } from './label-selector.js';
import { maxLenError, nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';
import { validatePodTemplateSpec } from './pod-spec.js';
import { SELECTOR_MISMATCH } from './workloads.js';

/** Upstream's validateJobSpec: everything but the selector rules. */
function validateJobSpecCommon(spec: JobSpec, path: string): ErrorList {
  const errs: ErrorList = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex'] as const) {
    errs.push(...validateNonnegativeField(spec[f], child(path, f)));
  }
  if (spec.completionMode !== undefined) {
    if (spec.completionMode !== 'NonIndexed' && spec.completionMode !== 'Indexed') {
      errs.push(notSupported(child(path, 'completionMode'), spec.completionMode, ['NonIndexed', 'Indexed']));
    } else if (spec.completionMode === 'Indexed' && spec.completions === undefined) {
      errs.push(required(child(path, 'completions'), 'when completion mode is Indexed'));
    }
  }
  errs.push(...validatePerIndexAndSuccessPolicy(spec, path));
  if (spec.podReplacementPolicy !== undefined) {
    if (!['TerminatingOrFailed', 'Failed'].includes(spec.podReplacementPolicy)) {
      errs.push(notSupported(child(path, 'podReplacementPolicy'), spec.podReplacementPolicy, ['TerminatingOrFailed', 'Failed']));
    } else if (spec.podFailurePolicy && spec.podReplacementPolicy !== 'Failed') {
      errs.push(notSupported(child(path, 'podReplacementPolicy'), spec.podReplacementPolicy, ['Failed']));
    }
  }
  const tp = child(path, 'template');
  errs.push(...validatePodTemplateSpec(spec.template, tp));
  const rp = spec.template?.spec?.restartPolicy;
  if (rp !== undefined && rp !== 'OnFailure' && rp !== 'Never') {
    errs.push(notSupported(child(tp, 'spec', 'restartPolicy'), rp, ['OnFailure', 'Never']));
  }
  return errs;
}

/** Upstream's limit on successPolicy rules. */
const MAX_SUCCESS_POLICY_RULES = 20;

/** backoffLimitPerIndex/maxFailedIndexes and successPolicy, both for Indexed Jobs only (upstream's wording). */
function validatePerIndexAndSuccessPolicy(spec: JobSpec, path: string): ErrorList {
  const errs: ErrorList = [];
  const indexed = spec.completionMode === 'Indexed';
  if (typeof spec.backoffLimitPerIndex === 'number' && !indexed) errs.push(invalid(child(path, 'backoffLimitPerIndex'), spec.backoffLimitPerIndex, 'requires indexed completion mode'));
  if (typeof spec.maxFailedIndexes === 'number') {
    errs.push(...validateNonnegativeField(spec.maxFailedIndexes, child(path, 'maxFailedIndexes')));
    if (typeof spec.backoffLimitPerIndex !== 'number') errs.push(required(child(path, 'backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
    if (typeof spec.completions === 'number' && spec.maxFailedIndexes > spec.completions) errs.push(invalid(child(path, 'maxFailedIndexes'), spec.maxFailedIndexes, 'must be less than or equal to completions'));
  }
  const policy = spec.successPolicy;
  if (!policy) return errs;
  if (!indexed) return [...errs, invalid(child(path, 'successPolicy'), policy, 'requires indexed completion mode')];
  const rulesPath = child(path, 'successPolicy', 'rules');
  const rules = policy.rules ?? [];
  if (rules.length === 0) errs.push(required(rulesPath, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_SUCCESS_POLICY_RULES) errs.push(tooMany(rulesPath, rules.length, MAX_SUCCESS_POLICY_RULES));
  for (const [i, rule] of rules.entries()) {
    const rp = index(rulesPath, i);
    if ((rule.succeededIndexes === undefined || rule.succeededIndexes === null) && (rule.succeededCount === undefined || rule.succeededCount === null)) {
      errs.push(required(rp, 'at least one of succeededCount or succeededIndexes must be specified'));
    }
    if (typeof rule.succeededIndexes === 'string' && !/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(rule.succeededIndexes)) {
      errs.push(invalid(child(rp, 'succeededIndexes'), rule.succeededIndexes, 'error parsing succeededIndexes: not a comma-separated list of indexes and index ranges'));
    }
    if (typeof rule.succeededCount === 'number') {
      if (rule.succeededCount < 0) errs.push(invalid(child(rp, 'succeededCount'), rule.succeededCount, 'must be greater than or equal to 0'));
      if (typeof spec.completions === 'number' && rule.succeededCount > spec.completions) {
        errs.push(invalid(child(rp, 'succeededCount'), rule.succeededCount, `must be less than or equal to ${spec.completions} (the number of specified completions)`));
      }
    }
  }
  return errs;
}

export function validateJob(job: Job): ErrorList {
  const errs = validateObjectMeta(job.metadata, true, nameIsDNSSubdomain);
  const spec = job.spec;
  if (!spec) return [...errs, required('spec')];
  errs.push(...validateJobSpecCommon(spec, 'spec'));
  if (!spec.selector) {
    errs.push(required('spec.selector'));
  } else {
    errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
    if (!selectorMatches(spec.selector, spec.template?.metadata?.labels)) {
      errs.push(invalid('spec.template.metadata.labels', spec.template?.metadata?.labels ?? {}, SELECTOR_MISMATCH));
    }
  }
  if (!spec.manualSelector && spec.selector && !job.metadata?.uid) errs.push(required('metadata.uid'));
  return errs;
}

export function validateJobUpdate(job: Job, old: Job): ErrorList {
  const errs: ErrorList = [];
  const s = job.spec ?? ({} as JobSpec);
  const o = old.spec ?? ({} as JobSpec);
  // Indexed jobs may scale completions together with parallelism (elastic indexed jobs).
  if (!(s.completionMode === 'Indexed' && s.completions === s.parallelism && o.completions === o.parallelism)) {
    errs.push(...validateImmutableField(s.completions, o.completions, 'spec.completions'));
  }
  errs.push(...validateImmutableField(s.selector, o.selector, 'spec.selector'));
  errs.push(...validateImmutableField(s.template, o.template, 'spec.template'));
  errs.push(...validateImmutableField(s.completionMode, o.completionMode, 'spec.completionMode'));
  errs.push(...validateImmutableField(s.podFailurePolicy, o.podFailurePolicy, 'spec.podFailurePolicy'));
  errs.push(...validateImmutableField(s.backoffLimitPerIndex, o.backoffLimitPerIndex, 'spec.backoffLimitPerIndex'));
  errs.push(...validateImmutableField(s.successPolicy, o.successPolicy, 'spec.successPolicy'));
  return errs;
}

function validateJobTemplateSpec(t: JobTemplateSpec | undefined, path: string): ErrorList {
  if (!t?.spec) return [required(child(path, 'spec'))];
  const errs = validateJobSpecCommon(t.spec, child(path, 'spec'));
  if (t.spec.selector) errs.push(invalid(child(path, 'spec', 'selector'), t.spec.selector, '`selector` will be auto-generated'));
  if (t.spec.manualSelector) errs.push(notSupported(child(path, 'spec', 'manualSelector'), t.spec.manualSelector, ['nil', 'false']));
  return errs;
}

function validateTimeZone(tz: string | undefined, path: string): ErrorList {
  if (tz === undefined) return [];
  if (tz === '') return [invalid(path, tz, 'timeZone must be nil or non-empty string')];
  if (tz.toLowerCase() === 'local') return [invalid(path, tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones')];
  if (!tz.split('/').every((part) => /^[A-Za-z.\-_0-9+]{1,14}$/.test(part)) || !isKnownTimeZone(tz)) {
    return [invalid(path, tz, `unknown time zone ${tz}`)];
  }
  return [];
}

/** `old` is given on update: TZ in an existing schedule stays tolerated and an unchanged timeZone is not rechecked. */
export function validateCronJob(cj: CronJob, old?: CronJob): ErrorList {
  const errs = validateObjectMeta(cj.metadata, true, nameIsDNSSubdomain);
  // Job names get an 11-character suffix, and must stay DNS-1035 labels.
  const name = cj.metadata?.name ?? '';
  if (name.length > 52) errs.push(invalid('metadata.name', name, maxLenError(52)));
  const spec = cj.spec;
  if (!spec) return [...errs, required('spec')];
  if (!spec.schedule) {
    errs.push(required('spec.schedule'));
  } else {
    const err = cronScheduleError(spec.schedule);
    if (err) errs.push(invalid('spec.schedule', spec.schedule, err));
    const allowTZ = old?.spec?.schedule.includes('TZ') ?? false;
    if (allowTZ && spec.schedule.includes('TZ') && spec.timeZone !== undefined) {
      errs.push(invalid('spec.schedule', spec.schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
    } else if (!allowTZ && spec.schedule.includes('TZ')) {
      errs.push(invalid('spec.schedule', spec.schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    }
  }
  errs.push(...validateNonnegativeField(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  if (!old || old.spec?.timeZone !== spec.timeZone) errs.push(...validateTimeZone(spec.timeZone, 'spec.timeZone'));
  const cp = spec.concurrencyPolicy ?? '';
  if (cp === '') errs.push(required('spec.concurrencyPolicy'));
  else if (!['Allow', 'Forbid', 'Replace'].includes(cp)) errs.push(notSupported('spec.concurrencyPolicy', cp, ['Allow', 'Forbid', 'Replace']));
  errs.push(...validateJobTemplateSpec(spec.jobTemplate, 'spec.jobTemplate'));
  errs.push(...validateNonnegativeField(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'));
  errs.push(...validateNonnegativeField(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'));
  return errs;
}
