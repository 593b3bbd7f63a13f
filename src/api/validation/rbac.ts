import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from 'kubernetes-types/rbac/v1.js';
import { child, deepEqual, index, invalid, notSupported, required, type ErrorList } from './errors.js';
import { validateLabelSelector } from './label-selector.js';
import { nameIsDNSSubdomain, validatePathSegmentName } from './name.js';
import { validateObjectMeta } from './object-meta.js';

/**
 * rbac.authorization.k8s.io/v1 validation, as upstream's
 * pkg/apis/rbac/validation: names only need to be safe path segments
 * (`system:controller:foo` is a valid role name).
 */

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: string): ErrorList {
  const errs: ErrorList = [];
  if (!rule.verbs?.length) errs.push(required(child(path, 'verbs'), 'verbs must contain at least one value'));
  if (rule.nonResourceURLs?.length) {
    if (namespaced) errs.push(invalid(child(path, 'nonResourceURLs'), rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (rule.apiGroups?.length || rule.resources?.length || rule.resourceNames?.length) {
      errs.push(invalid(child(path, 'nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!rule.apiGroups?.length) errs.push(required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  if (!rule.resources?.length) errs.push(required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(rules: PolicyRule[] | undefined, namespaced: boolean): ErrorList {
  return (rules ?? []).flatMap((r, i) => validatePolicyRule(r, namespaced, index('rules', i)));
}

export function validateRole(role: Role): ErrorList {
  return [...validateObjectMeta(role.metadata, true, validatePathSegmentName), ...validateRules(role.rules, true)];
}

export function validateClusterRole(role: ClusterRole): ErrorList {
  const errs = [...validateObjectMeta(role.metadata, false, validatePathSegmentName), ...validateRules(role.rules, false)];
  const agg = role.aggregationRule;
  if (agg) {
    const path = 'aggregationRule.clusterRoleSelectors';
    if (!agg.clusterRoleSelectors?.length) errs.push(required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    (agg.clusterRoleSelectors ?? []).forEach((sel, i) => errs.push(...validateLabelSelector(sel, index(path, i))));
  }
  return errs;
}

function validateRoleRef(ref: RoleRef | undefined, kinds: string[]): ErrorList {
  const errs: ErrorList = [];
  const r = ref ?? { apiGroup: '', kind: '', name: '' };
  if (r.apiGroup !== RBAC_GROUP) errs.push(notSupported('roleRef.apiGroup', r.apiGroup ?? '', [RBAC_GROUP]));
  if (!kinds.includes(r.kind)) errs.push(notSupported('roleRef.kind', r.kind ?? '', kinds));
  if (!r.name) errs.push(required('roleRef.name'));
  else for (const msg of validatePathSegmentName(r.name, false)) errs.push(invalid('roleRef.name', r.name, msg));
  return errs;
}

export function validateSubject(subject: Subject, namespaced: boolean, path: string): ErrorList {
  const errs: ErrorList = [];
  if (!subject.name) errs.push(required(child(path, 'name')));
  switch (subject.kind) {
    case 'ServiceAccount':
      if (subject.name) for (const msg of nameIsDNSSubdomain(subject.name, false)) errs.push(invalid(child(path, 'name'), subject.name, msg));
      if (subject.apiGroup) errs.push(notSupported(child(path, 'apiGroup'), subject.apiGroup, ['']));
      if (!namespaced && !subject.namespace) errs.push(required(child(path, 'namespace')));
      break;
    case 'User':
    case 'Group':
      if (subject.apiGroup !== RBAC_GROUP) errs.push(notSupported(child(path, 'apiGroup'), subject.apiGroup ?? '', [RBAC_GROUP]));
      break;
    default:
      errs.push(notSupported(child(path, 'kind'), subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(b: RoleBinding | ClusterRoleBinding, namespaced: boolean): ErrorList {
  return [
    ...validateObjectMeta(b.metadata, namespaced, validatePathSegmentName),
    ...validateRoleRef(b.roleRef, namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole']),
    ...(b.subjects ?? []).flatMap((s, i) => validateSubject(s, namespaced, index('subjects', i))),
  ];
}

export const validateRoleBinding = (b: RoleBinding): ErrorList => validateBinding(b, true);
export const validateClusterRoleBinding = (b: ClusterRoleBinding): ErrorList => validateBinding(b, false);

/** A binding's role cannot change: delete and recreate it instead. */
export function validateBindingUpdate(b: RoleBinding | ClusterRoleBinding, old: RoleBinding | ClusterRoleBinding): ErrorList {
  return deepEqual(b.roleRef, old.roleRef) ? [] : [invalid('roleRef', b.roleRef, 'cannot change roleRef')];
}
