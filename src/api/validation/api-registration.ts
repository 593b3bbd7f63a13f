import type { APIService } from '../types/apiregistration/v1.js';
import { child, index, invalid, notSupported, required, type ErrorList } from './errors.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum, validatePathSegmentName } from './name.js';
import { validateObjectMeta } from './object-meta.js';

/** Upstream's ValidateAPIService (kube-aggregator): the name is `<version>.<group>`, priorities in range, local APIServices carry no TLS settings. */
export function validateAPIService(svc: APIService): ErrorList {
  const spec = svc.spec ?? { groupPriorityMinimum: 0, versionPriority: 0 };
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  const requiredName = `${version}.${group}`;
  const errs = validateObjectMeta(svc.metadata, false, (name, prefix) => {
    const segment = validatePathSegmentName(name, prefix);
    if (segment.length) return segment;
    return name === requiredName ? [] : [`must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`];
  });
  // only the legacy core group may be empty
  if (!group && version !== 'v1') errs.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group) for (const msg of isDNS1123Subdomain(group)) errs.push(invalid('spec.group', group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(invalid('spec.version', version, msg));
  const gpm = spec.groupPriorityMinimum ?? 0;
  if (gpm <= 0 || gpm > 20000) errs.push(invalid('spec.groupPriorityMinimum', gpm, 'must be positive and less than 20000'));
  const vp = spec.versionPriority ?? 0;
  if (vp <= 0 || vp > 1000) errs.push(invalid('spec.versionPriority', vp, 'must be positive and less than 1000'));
  const caBundle = spec.caBundle ?? '';
  if (!spec.service) {
    if (caBundle) errs.push(invalid('spec.caBundle', `${Buffer.from(caBundle, 'base64').length} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify) errs.push(invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if (!spec.service.namespace) errs.push(required('spec.service.namespace'));
  if (!spec.service.name) errs.push(required('spec.service.name'));
  const port = spec.service.port ?? 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(invalid('spec.service.port', port, `port is not valid: ${portErrs.join(', ')}`));
  if (spec.insecureSkipTLSVerify && caBundle) errs.push(invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

/** Upstream's ValidateAPIServiceStatus: each condition's status is one of True, False, Unknown. */
export function validateAPIServiceStatus(svc: APIService): ErrorList {
  const errs: ErrorList = [];
  (svc.status?.conditions ?? []).forEach((c, i) => {
    const path = child(index('status.conditions', i), 'status');
    if (!CONDITION_STATUSES.includes(c.status)) errs.push(notSupported(path, c.status, CONDITION_STATUSES));
  });
  return errs;
}
