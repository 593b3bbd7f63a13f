import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, PodTemplateSpec, ReplicationController } from 'kubernetes-types/core/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { child, deepEqual, forbidden, invalid, notSupported, required, validateImmutableField, validateNonnegativeField, type ErrorList } from './errors.js';
import { intOrPercentValue, isNotMoreThan100Percent, validatePositiveIntOrPercent } from './int-or-percent.js';
import { isEmptySelector, selectorMatches, validateLabelSelector } from './label-selector.js';
import { nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';
import { validatePodTemplateSpec } from './pod-spec.js';

export const SELECTOR_MISMATCH = '`selector` does not match template `labels`';

/** Selector presence, validity and non-emptiness; `what` completes upstream's "empty selector is invalid for ...". */
function validateSelector(selector: LabelSelector | undefined, path: string, what: string): ErrorList {
  if (!selector) return [required(path)];
  const errs = validateLabelSelector(selector, path);
  if (isEmptySelector(selector)) errs.push(invalid(path, selector, `empty selector is invalid for ${what}`));
  return errs;
}

/**
 * A controller's template: selector must match its labels, restartPolicy must
 * be Always and activeDeadlineSeconds is not supported (`kind` names the owner).
 */
function validateControllerTemplate(template: PodTemplateSpec | undefined, selector: LabelSelector | undefined, path: string, kind: string): ErrorList {
  if (!template) return [required(path)];
  const errs: ErrorList = [];
  if (selector && !isEmptySelector(selector) && !selectorMatches(selector, template.metadata?.labels)) {
    errs.push(invalid(child(path, 'metadata', 'labels'), template.metadata?.labels ?? {}, SELECTOR_MISMATCH));
  }
  errs.push(...validatePodTemplateSpec(template, path));
  const rp = template.spec?.restartPolicy;
  if (rp && rp !== 'Always') errs.push(notSupported(child(path, 'spec', 'restartPolicy'), rp, ['Always']));
  if (template.spec?.activeDeadlineSeconds !== undefined) {
    errs.push(forbidden(child(path, 'spec', 'activeDeadlineSeconds'), `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return errs;
}

export function validateDeployment(d: Deployment): ErrorList {
  const errs = validateObjectMeta(d.metadata, true, nameIsDNSSubdomain);
  const spec = d.spec;
  if (!spec) return [...errs, required('spec')];
  errs.push(...validateNonnegativeField(spec.replicas, 'spec.replicas'));
  errs.push(...validateSelector(spec.selector, 'spec.selector', 'deployment'));
  errs.push(...validateControllerTemplate(spec.template, spec.selector, 'spec.template', 'ReplicaSet'));
  const strategy = spec.strategy ?? {};
  switch (strategy.type) {
    case 'Recreate':
      if (strategy.rollingUpdate) errs.push(forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
      break;
    case 'RollingUpdate': {
      const ru = strategy.rollingUpdate;
      if (!ru) {
        errs.push(required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil'));
        break;
      }
      errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
      errs.push(...validatePositiveIntOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'));
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        errs.push(invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
      }
      errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
      break;
    }
    default:
      errs.push(notSupported('spec.strategy', strategy, ['Recreate', 'RollingUpdate']));
  }
  errs.push(...validateNonnegativeField(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...validateNonnegativeField(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (spec.progressDeadlineSeconds !== undefined) {
    errs.push(...validateNonnegativeField(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
      errs.push(invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    }
  }
  return errs;
}

/** apps/v1 made selectors immutable for every workload. */
export function validateSelectorUpdate(obj: { spec?: { selector?: LabelSelector } }, old: { spec?: { selector?: LabelSelector } }): ErrorList {
  return validateImmutableField(obj.spec?.selector, old.spec?.selector, 'spec.selector');
}

export function validateReplicaSet(rs: ReplicaSet): ErrorList {
  const errs = validateObjectMeta(rs.metadata, true, nameIsDNSSubdomain);
  const spec = rs.spec;
  if (!spec) return [...errs, required('spec')];
  errs.push(...validateNonnegativeField(spec.replicas, 'spec.replicas'));
  errs.push(...validateNonnegativeField(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...validateSelector(spec.selector, 'spec.selector', 'deployment'));
  errs.push(...validateControllerTemplate(spec.template, spec.selector, 'spec.template', 'ReplicaSet'));
  return errs;
}

/**
 * core/v1 ReplicationController: a plain-map selector, required and not
 * empty, matching the template's labels; unlike apps/v1 it may change.
 */
export function validateReplicationController(rc: ReplicationController): ErrorList {
  const errs = validateObjectMeta(rc.metadata, true, nameIsDNSSubdomain);
  const spec = rc.spec;
  if (!spec) return [...errs, required('spec')];
  errs.push(...validateNonnegativeField(spec.minReadySeconds, 'spec.minReadySeconds'));
  const selector = spec.selector ?? {};
  if (Object.keys(selector).length === 0) errs.push(required('spec.selector'));
  errs.push(...validateNonnegativeField(spec.replicas, 'spec.replicas'));
  errs.push(...validateControllerTemplate(spec.template, { matchLabels: selector }, 'spec.template', 'ReplicationController'));
  return errs;
}

const STS_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'] as const;

export function validateStatefulSet(sts: StatefulSet): ErrorList {
  const errs = validateObjectMeta(sts.metadata, true, nameIsDNSSubdomain);
  const spec = sts.spec;
  if (!spec) return [...errs, required('spec')];
  switch (spec.podManagementPolicy ?? '') {
    case '':
      errs.push(required('spec.podManagementPolicy'));
      break;
    case 'OrderedReady':
    case 'Parallel':
      break;
    default:
      errs.push(invalid('spec.podManagementPolicy', spec.podManagementPolicy, "must be 'OrderedReady' or 'Parallel'"));
  }
  const us = spec.updateStrategy ?? {};
  switch (us.type ?? '') {
    case '':
      errs.push(required('spec.updateStrategy'));
      break;
    case 'OnDelete':
      if (us.rollingUpdate) errs.push(invalid('spec.updateStrategy.rollingUpdate', us.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
      break;
    case 'RollingUpdate':
      errs.push(...validateNonnegativeField(us.rollingUpdate?.partition, 'spec.updateStrategy.rollingUpdate.partition'));
      if (us.rollingUpdate?.maxUnavailable !== undefined) {
        const p = 'spec.updateStrategy.rollingUpdate.maxUnavailable';
        errs.push(...validatePositiveIntOrPercent(us.rollingUpdate.maxUnavailable, p), ...isNotMoreThan100Percent(us.rollingUpdate.maxUnavailable, p));
        if (intOrPercentValue(us.rollingUpdate.maxUnavailable) === 0) errs.push(invalid(p, us.rollingUpdate.maxUnavailable, 'cannot be 0'));
      }
      break;
    default:
      errs.push(invalid('spec.updateStrategy', us, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  for (const f of ['whenDeleted', 'whenScaled'] as const) {
    const v = retention?.[f];
    if (v !== undefined && v !== 'Retain' && v !== 'Delete') errs.push(notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v, ['Retain', 'Delete']));
  }
  errs.push(...validateNonnegativeField(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  errs.push(...validateNonnegativeField(spec.replicas, 'spec.replicas'));
  errs.push(...validateNonnegativeField(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...validateNonnegativeField(spec.ordinals?.start, 'spec.ordinals.start'));
  errs.push(...validateSelector(spec.selector, 'spec.selector', 'statefulset'));
  errs.push(...validateControllerTemplate(withClaimVolumes(spec.template, spec.volumeClaimTemplates), spec.selector, 'spec.template', 'StatefulSet'));
  return errs;
}

/**
 * The template as its pods will look: each volumeClaimTemplate is a volume of
 * that name (the controller adds it), so mounts of claim templates are valid,
 * as upstream, which does not check the template's volumes against mounts.
 */
function withClaimVolumes(template: PodTemplateSpec | undefined, claims: PersistentVolumeClaim[] | undefined): PodTemplateSpec | undefined {
  if (!template?.spec || !claims?.length) return template;
  const names = new Set((template.spec.volumes ?? []).map((v) => v.name));
  const added = claims.filter((c) => c.metadata?.name && !names.has(c.metadata.name)).map((c) => ({ name: c.metadata?.name ?? '', emptyDir: {} }));
  if (added.length === 0) return template;
  return { ...template, spec: { ...template.spec, volumes: [...(template.spec.volumes ?? []), ...added] } };
}

export function validateStatefulSetUpdate(sts: StatefulSet, old: StatefulSet): ErrorList {
  const strip = (s: StatefulSet['spec']): Record<string, unknown> => {
    const copy: Record<string, unknown> = { ...(s ?? {}) };
    for (const f of STS_MUTABLE) delete copy[f];
    return copy;
  };
  if (deepEqual(strip(sts.spec), strip(old.spec))) return [];
  return [
    forbidden(
      'spec',
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
}

export function validateDaemonSet(ds: DaemonSet): ErrorList {
  const errs = validateObjectMeta(ds.metadata, true, nameIsDNSSubdomain);
  const spec = ds.spec;
  if (!spec) return [...errs, required('spec')];
  errs.push(...validateSelector(spec.selector, 'spec.selector', 'daemonset'));
  errs.push(...validateControllerTemplate(spec.template, spec.selector, 'spec.template', 'DaemonSet'));
  errs.push(...validateNonnegativeField(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...validateNonnegativeField(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const us = spec.updateStrategy ?? {};
  switch (us.type) {
    case 'OnDelete':
      break;
    case 'RollingUpdate': {
      const ru = us.rollingUpdate;
      if (!ru) {
        errs.push(required('spec.updateStrategy.rollingUpdate'));
        break;
      }
      const up = 'spec.updateStrategy.rollingUpdate.maxUnavailable';
      const sp = 'spec.updateStrategy.rollingUpdate.maxSurge';
      errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, up), ...isNotMoreThan100Percent(ru.maxUnavailable, up));
      errs.push(...validatePositiveIntOrPercent(ru.maxSurge, sp), ...isNotMoreThan100Percent(ru.maxSurge, sp));
      const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
      if (hasUnavailable && hasSurge) errs.push(invalid(sp, ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
      if (!hasUnavailable && !hasSurge) errs.push(invalid(up, ru.maxUnavailable, 'cannot be 0 when maxSurge is 0'));
      break;
    }
    default:
      errs.push(notSupported('spec.updateStrategy', us, ['RollingUpdate', 'OnDelete']));
  }
  return errs;
}

export function validateControllerRevision(cr: ControllerRevision): ErrorList {
  const errs = validateObjectMeta(cr.metadata, true, nameIsDNSSubdomain);
  if (cr.data === undefined || cr.data === null) errs.push(required('data', 'data is mandatory'));
  errs.push(...validateNonnegativeField(cr.revision, 'revision'));
  return errs;
}

export function validateControllerRevisionUpdate(cr: ControllerRevision, old: ControllerRevision): ErrorList {
  return validateImmutableField(cr.data, old.data, 'data');
}
