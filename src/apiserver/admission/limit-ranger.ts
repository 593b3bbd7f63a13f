import type { Container, LimitRange, LimitRangeItem, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { asKind } from '../../api/object.js';
import { Quantity } from '../../machinery/quantity.js';
import { podResources } from '../../machinery/quota/pod-resources.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes, MutatingAdmission, Operation, ValidatingAdmission } from './admission.js';
import { admissionForbidden } from './forbidden.js';

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

type ResourceList = Record<string, string>;
type QuantityList = Map<string, Quantity>;

/**
 * LimitRanger admission: the namespace's LimitRanges give new pods' containers
 * their default requests and limits (`default`, `defaultRequest`; noted in the
 * `kubernetes.io/limit-ranger` annotation), then bound every container, the
 * pod as a whole and each PersistentVolumeClaim by `min`, `max` and
 * `maxLimitRequestRatio`; a violation is 403 with upstream's message
 * (`maximum cpu usage per Container is 1, but limit is 2`). Pod updates are
 * left alone (containers' resources cannot change), as upstream.
 */
export class LimitRanger implements MutatingAdmission, ValidatingAdmission {
  readonly name = 'LimitRanger';

  constructor(private readonly limitRanges: () => RegistryStore | undefined) {}

  handles(operation: Operation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!this.supports(attrs) || attrs.resource.resource !== 'pods') return;
    const pod = asKind<Pod>(attrs.object!) as Pod;
    for (const lr of await this.rangesFor(attrs)) mergeDefaults(pod, lr);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!this.supports(attrs)) return;
    for (const lr of await this.rangesFor(attrs)) {
      const errors = attrs.resource.resource === 'pods' ? validatePod(lr, asKind<Pod>(attrs.object!) as Pod) : validateClaim(lr, asKind<PersistentVolumeClaim>(attrs.object!) as PersistentVolumeClaim);
      if (errors.length > 0) throw admissionForbidden(attrs, errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
    }
  }

  /** Pods on create and claims on create or update, never subresources or objects being deleted. */
  private supports(attrs: AdmissionAttributes): boolean {
    const { group, resource } = attrs.resource;
    if (group !== '' || attrs.subresource || !attrs.object || !attrs.namespace) return false;
    if (resource === 'pods') return attrs.operation === 'CREATE';
    if (resource !== 'persistentvolumeclaims') return false;
    return !attrs.oldObject?.metadata?.deletionTimestamp;
  }

  private async rangesFor(attrs: AdmissionAttributes): Promise<LimitRange[]> {
    const store = this.limitRanges();
    if (!store) return [];
    const list = await store.list(attrs.namespace, {});
    return list.items.map((i) => asKind<LimitRange>(i) as LimitRange);
  }
}

/** The defaults of a LimitRange's Container items: limits from `default`, requests from `defaultRequest`. */
function containerDefaults(lr: LimitRange): { requests: ResourceList; limits: ResourceList } {
  const requests: ResourceList = {};
  const limits: ResourceList = {};
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    Object.assign(requests, item.defaultRequest ?? {});
    Object.assign(limits, item.default ?? {});
  }
  return { requests, limits };
}

/** Fills unset requests and limits of every container (then init container) and records what it set. */
export function mergeDefaults(pod: Pod, lr: LimitRange): void {
  const defaults = containerDefaults(lr);
  const notes: string[] = [];
  const merge = (c: Container, what: string) => {
    const resources = ((c as { resources?: Container['resources'] }).resources ??= {});
    const limits = (resources.limits ??= {}) as ResourceList;
    const requests = (resources.requests ??= {}) as ResourceList;
    // upstream defaults requests from the container's own limits while decoding, before admission
    for (const [k, v] of Object.entries(limits)) if (!(k in requests)) requests[k] = v;
    const setLimits = Object.entries(defaults.limits).filter(([k]) => !(k in limits));
    const setRequests = Object.entries(defaults.requests).filter(([k]) => !(k in requests));
    for (const [k, v] of setLimits) limits[k] = v;
    for (const [k, v] of setRequests) requests[k] = v;
    if (setRequests.length > 0) notes.push(`${setRequests.map(([k]) => k).sort().join(', ')} request for ${what} ${c.name}`);
    if (setLimits.length > 0) notes.push(`${setLimits.map(([k]) => k).sort().join(', ')} limit for ${what} ${c.name}`);
  };
  for (const c of pod.spec?.containers ?? []) merge(c, 'container');
  for (const c of pod.spec?.initContainers ?? []) merge(c, 'init container');
  if (notes.length > 0) {
    const meta = ((pod as { metadata?: Pod['metadata'] }).metadata ??= {});
    meta.annotations = { ...meta.annotations, [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
  }
}

function quantities(list: ResourceList | undefined): QuantityList {
  return new Map(Object.entries(list ?? {}).map(([k, v]) => [k, Quantity.parse(String(v))]));
}

const MAX_MILLI = Number.MAX_SAFE_INTEGER / 1000;

/** Upstream compares in thousandths unless a value is too large for that. */
function comparable(...qs: (Quantity | undefined)[]): number[] {
  const useMilli = qs.every((q) => !q || q.value() <= MAX_MILLI);
  return qs.map((q) => (q ? (useMilli ? q.milliValue() : q.value()) : 0));
}

function minConstraint(type: string, name: string, enforced: Quantity, requests: QuantityList, limits: QuantityList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  if (!req) return `minimum ${name} usage per ${type} is ${enforced}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${enforced}, but request is ${req}`;
  if (lim && l < e) return `minimum ${name} usage per ${type} is ${enforced}, but limit is ${lim}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, requests: QuantityList, limits: QuantityList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  if (!lim) return `maximum ${name} usage per ${type} is ${enforced}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${enforced}, but limit is ${lim}`;
  if (req && r > e) return `maximum ${name} usage per ${type} is ${enforced}, but request is ${req}`;
  return undefined;
}

function maxRequestConstraint(type: string, name: string, enforced: Quantity, requests: QuantityList): string | undefined {
  const req = requests.get(name);
  const [r, e] = comparable(req, enforced);
  if (!req) return `maximum ${name} usage per ${type} is ${enforced}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${enforced}, but request is ${req}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforced: Quantity, requests: QuantityList, limits: QuantityList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = comparable(req, lim, enforced);
  if (!req || r === 0) return `${name} max limit to request ratio per ${type} is ${enforced}, but no request is specified or request is 0`;
  if (!lim || l === 0) return `${name} max limit to request ratio per ${type} is ${enforced}, but no limit is specified or limit is 0`;
  const ratio = l / r;
  if (ratio > enforced.toNumber()) return `${name} max limit to request ratio per ${type} is ${enforced}, but provided ratio is ${ratio.toFixed(6)}`;
  return undefined;
}

function checkItem(item: LimitRangeItem, requests: QuantityList, limits: QuantityList, errors: string[]): void {
  const type = item.type;
  const each = (list: ResourceList | undefined, fn: typeof minConstraint) => {
    for (const [name, enforced] of quantities(list)) {
      const err = fn(type, name, enforced, requests, limits);
      if (err) errors.push(err);
    }
  };
  each(item.min, minConstraint);
  each(item.max, maxConstraint);
  each(item.maxLimitRequestRatio, ratioConstraint);
}

/** Every Container and Pod item of the LimitRange against the pod; the messages of what fails. */
export function validatePod(lr: LimitRange, pod: Pod): string[] {
  const errors: string[] = [];
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  for (const item of lr.spec?.limits ?? []) {
    if (item.type === 'Container') {
      for (const c of containers) checkItem(item, quantities(c.resources?.requests as ResourceList), quantities(c.resources?.limits as ResourceList), errors);
    } else if (item.type === 'Pod') {
      checkItem(item, podResources(pod, 'requests'), podResources(pod, 'limits'), errors);
    }
  }
  return errors;
}

/** A claim's requested storage against PersistentVolumeClaim items (limits are not user input there). */
export function validateClaim(lr: LimitRange, pvc: PersistentVolumeClaim): string[] {
  const errors: string[] = [];
  const requests = quantities(pvc.spec?.resources?.requests as ResourceList);
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [name, enforced] of quantities(item.min)) {
      const err = minConstraint(item.type, name, enforced, requests, new Map());
      if (err) errors.push(err);
    }
    for (const [name, enforced] of quantities(item.max)) {
      const err = maxRequestConstraint(item.type, name, enforced, requests);
      if (err) errors.push(err);
    }
  }
  return errors;
}
