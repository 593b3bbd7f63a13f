import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { forbidden, notSupported, required, validateImmutableField, type ErrorList } from './errors.js';
import { nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';

export const HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000;
const SYSTEM_PREFIX = 'system-';
const SYSTEM_CLASSES: Record<string, number> = { 'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000 };
const PREEMPTION_POLICIES = ['Never', 'PreemptLowerPriority'];

/** Upstream's IsKnownSystemPriorityClass error, or undefined when the class is a known system one. */
function systemClassError(pc: PriorityClass): string | undefined {
  const name = pc.metadata?.name ?? '';
  const value = SYSTEM_CLASSES[name];
  if (value === undefined) return `${name} is not a known system priority class`;
  if (pc.value !== value) return `value of ${name} PriorityClass must be ${value}`;
  if (pc.globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

export function validatePriorityClass(pc: PriorityClass): ErrorList {
  const errs = validateObjectMeta(pc.metadata, false, nameIsDNSSubdomain);
  if ((pc.metadata?.name ?? '').startsWith(SYSTEM_PREFIX)) {
    const err = systemClassError(pc);
    if (err) errs.push(forbidden('metadata.name', `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${err}`));
  } else if (pc.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  if (pc.preemptionPolicy === undefined) errs.push(required('preemptionPolicy'));
  else if (!PREEMPTION_POLICIES.includes(pc.preemptionPolicy)) errs.push(notSupported('preemptionPolicy', pc.preemptionPolicy, PREEMPTION_POLICIES));
  return errs;
}

export function validatePriorityClassUpdate(pc: PriorityClass, old: PriorityClass): ErrorList {
  const errs: ErrorList = [];
  if (pc.value !== old.value) errs.push(forbidden('value', 'may not be changed in an update.'));
  errs.push(...validateImmutableField(pc.preemptionPolicy, old.preemptionPolicy, 'preemptionPolicy'));
  return errs;
}
