import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { invalid, notSupported, type ErrorList } from './errors.js';
import { isNotMoreThan100Percent, validatePositiveIntOrPercent } from './int-or-percent.js';
import { validateLabelSelector } from './label-selector.js';
import { nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

export function validatePodDisruptionBudget(pdb: PodDisruptionBudget): ErrorList {
  const errs = validateObjectMeta(pdb.metadata, true, nameIsDNSSubdomain);
  const spec = pdb.spec ?? {};
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    errs.push(invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const f of ['minAvailable', 'maxUnavailable'] as const) {
    if (spec[f] === undefined) continue;
    errs.push(...validatePositiveIntOrPercent(spec[f], `spec.${f}`), ...isNotMoreThan100Percent(spec[f], `spec.${f}`));
  }
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && !EVICTION_POLICIES.includes(policy)) errs.push(notSupported('spec.unhealthyPodEvictionPolicy', policy, EVICTION_POLICIES));
  return errs;
}
