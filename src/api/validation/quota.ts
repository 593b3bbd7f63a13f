import type { LimitRange, ResourceQuota } from 'kubernetes-types/core/v1.js';
import { child, forbidden, index, invalid, key, notSupported, required, type ErrorList } from './errors.js';
import { isQualifiedName, nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';
import { parseQuantity, validateNonnegativeQuantity } from './quantity.js';

const STANDARD_QUOTA_RESOURCES = [
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers',
  'secrets', 'persistentvolumeclaims', 'configmaps', 'services.nodeports', 'services.loadbalancers',
];
const INTEGER_QUOTA_RESOURCES = [
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'persistentvolumeclaims', 'configmaps',
  'services.nodeports', 'services.loadbalancers',
];
const QUOTA_SCOPES = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating', 'VolumeAttributesClass'];

function isIntegerResource(name: string): boolean {
  return INTEGER_QUOTA_RESOURCES.includes(name) || name.startsWith('count/');
}

function validateQuotaResource(name: string, value: unknown, path: string): ErrorList {
  const errs = isQualifiedName(name).map((m) => invalid(path, name, m));
  if (!name.includes('/') && !STANDARD_QUOTA_RESOURCES.includes(name) && !/^(requests\.|limits\.)?hugepages-/.test(name)) {
    errs.push(invalid(path, name, 'must be a standard resource for quota'));
  }
  errs.push(...validateNonnegativeQuantity(value, path));
  const n = parseQuantity(value);
  if (isIntegerResource(name) && n !== undefined && !Number.isInteger(n)) errs.push(invalid(path, value, 'must be an integer'));
  return errs;
}

export function validateResourceQuota(rq: ResourceQuota): ErrorList {
  const errs = validateObjectMeta(rq.metadata, true, nameIsDNSSubdomain);
  for (const [name, v] of Object.entries(rq.spec?.hard ?? {})) errs.push(...validateQuotaResource(name, v, key('spec.hard', name)));
  for (const scope of rq.spec?.scopes ?? []) {
    if (!QUOTA_SCOPES.includes(scope)) errs.push(invalid('spec.scopes', rq.spec?.scopes, 'unsupported scope'));
  }
  for (const [name, v] of Object.entries(rq.status?.hard ?? {})) errs.push(...validateQuotaResource(name, v, key('status.hard', name)));
  for (const [name, v] of Object.entries(rq.status?.used ?? {})) errs.push(...validateQuotaResource(name, v, key('status.used', name)));
  return errs;
}

const LIMIT_TYPES = ['Container', 'Pod', 'PersistentVolumeClaim'];

export function validateLimitRange(lr: LimitRange): ErrorList {
  const errs = validateObjectMeta(lr.metadata, true, nameIsDNSSubdomain);
  (lr.spec?.limits ?? []).forEach((item, i) => {
    const p = index('spec.limits', i);
    if (!item.type) errs.push(required(child(p, 'type')));
    else if (!LIMIT_TYPES.includes(item.type) && !item.type.includes('/')) errs.push(notSupported(child(p, 'type'), item.type, LIMIT_TYPES));
    if (item.type === 'Pod') {
      if (Object.keys(item.default ?? {}).length) errs.push(forbidden(child(p, 'default'), "may not be specified when `type` is 'Pod'"));
      if (Object.keys(item.defaultRequest ?? {}).length) errs.push(forbidden(child(p, 'defaultRequest'), "may not be specified when `type` is 'Pod'"));
    }
    const maps = { max: item.max ?? {}, min: item.min ?? {}, default: item.default ?? {}, defaultRequest: item.defaultRequest ?? {} };
    const keys = new Set<string>();
    for (const [field, map] of Object.entries(maps)) {
      for (const [name, q] of Object.entries(map)) {
        keys.add(name);
        errs.push(...validateNonnegativeQuantity(q, key(child(p, field), name)));
      }
    }
    for (const name of keys) {
      const [mx, mn, df, dr] = [maps.max[name], maps.min[name], maps.default[name], maps.defaultRequest[name]];
      const [vmx, vmn, vdf, vdr] = [mx, mn, df, dr].map((q) => (q === undefined ? undefined : parseQuantity(q)));
      const gt = (a: number | undefined, b: number | undefined): boolean => a !== undefined && b !== undefined && a > b;
      if (gt(vmn, vmx)) errs.push(invalid(key(child(p, 'min'), name), mn, `min value ${mn} is greater than max value ${mx}`));
      if (gt(vmn, vdr)) errs.push(invalid(key(child(p, 'defaultRequest'), name), dr, `min value ${mn} is greater than default request value ${dr}`));
      if (gt(vdr, vmx)) errs.push(invalid(key(child(p, 'defaultRequest'), name), dr, `default request value ${dr} is greater than max value ${mx}`));
      if (gt(vdr, vdf)) errs.push(invalid(key(child(p, 'defaultRequest'), name), dr, `default request value ${dr} is greater than default limit value ${df}`));
      if (gt(vmn, vdf)) errs.push(invalid(key(child(p, 'default'), name), mn, `min value ${mn} is greater than default value ${df}`));
      if (gt(vdf, vmx)) errs.push(invalid(key(child(p, 'default'), name), mx, `default value ${df} is greater than max value ${mx}`));
    }
  });
  return errs;
}
