import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { invalid, type ErrorList } from './errors.js';
import { nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';

export function validateLease(lease: Lease): ErrorList {
  const errs = validateObjectMeta(lease.metadata, true, nameIsDNSSubdomain);
  const spec = lease.spec ?? {};
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0) {
    errs.push(invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0) {
    errs.push(invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  return errs;
}
