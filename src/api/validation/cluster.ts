import type { Namespace, Node, ServiceAccount, Taint } from 'kubernetes-types/core/v1.js';
import { child, duplicate, forbidden, index, invalid, type ErrorList } from './errors.js';
import { isQualifiedName, isValidLabelValue, nameIsDNSLabel, nameIsDNSSubdomain } from './name.js';
import { validateLabelName, validateObjectMeta } from './object-meta.js';
import { validateTaintEffect } from './pod-spec.js';

const STANDARD_FINALIZERS = ['kubernetes', 'orphan', 'foregroundDeletion'];

/** Upstream's validateFinalizerName for namespace spec.finalizers: unqualified names must be standard. */
function validateFinalizerName(name: string, path: string): ErrorList {
  const errs = isQualifiedName(name).map((m) => invalid(path, name, m));
  if (!name.includes('/') && !STANDARD_FINALIZERS.includes(name)) {
    errs.push(invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

export function validateNamespace(ns: Namespace): ErrorList {
  const errs = validateObjectMeta(ns.metadata, false, nameIsDNSLabel);
  for (const f of ns.spec?.finalizers ?? []) errs.push(...validateFinalizerName(f, 'spec.finalizers'));
  return errs;
}

function validateTaints(taints: Taint[] | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  const seen = new Set<string>();
  (taints ?? []).forEach((t, i) => {
    const p = index(path, i);
    errs.push(...validateLabelName(t.key, child(p, 'key')));
    if (t.value) for (const m of isValidLabelValue(t.value)) errs.push(invalid(child(p, 'value'), t.value, m));
    errs.push(...validateTaintEffect(t.effect, false, child(p, 'effect')));
    const id = `${t.key}/${t.effect}`;
    if (seen.has(id)) errs.push(duplicate(p, t));
    seen.add(id);
  });
  return errs;
}

export function validateNode(node: Node): ErrorList {
  const errs = validateObjectMeta(node.metadata, false, nameIsDNSSubdomain);
  errs.push(...validateTaints(node.spec?.taints, 'spec.taints'));
  return errs;
}

export function validateNodeUpdate(node: Node, old: Node): ErrorList {
  const errs: ErrorList = [];
  const oldCIDRs = old.spec?.podCIDRs ?? [];
  if (oldCIDRs.length && JSON.stringify(oldCIDRs) !== JSON.stringify(node.spec?.podCIDRs ?? [])) {
    errs.push(forbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid'));
  }
  if (old.spec?.providerID && old.spec.providerID !== node.spec?.providerID) {
    errs.push(forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  return errs;
}

export function validateServiceAccount(sa: ServiceAccount): ErrorList {
  return validateObjectMeta(sa.metadata, true, nameIsDNSSubdomain);
}
