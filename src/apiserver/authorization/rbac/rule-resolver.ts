import type { PolicyRule, RoleRef, Subject } from 'kubernetes-types/rbac/v1.js';
import type { RbacObjects } from './rbac-objects.js';

/** Who is asking: the user name and groups are all RBAC looks at. */
export interface RbacUser {
  name: string;
  groups: readonly string[];
}

/** A role binding could not be followed (its role is missing); the rest still count. */
export class RuleResolutionError extends Error {
  override readonly name = 'RuleResolutionError';
}

/** Upstream's appliesToUser: does a binding's subject name this user? */
export function subjectMatches(user: RbacUser, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      // a RoleBinding's service account defaults to the binding's namespace
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} "${s.name}/${s.namespace || bindingNamespace}"`;
  return `${s.kind} "${s.name}"`;
}

/** The rules a roleRef grants in a binding's namespace, or an error naming what is missing. */
export function roleReferenceRules(objects: RbacObjects, ref: RoleRef, bindingNamespace: string): PolicyRule[] | RuleResolutionError {
  if (ref.kind === 'Role') {
    const role = objects.getRole(bindingNamespace, ref.name);
    return role ? (role.rules ?? []) : new RuleResolutionError(`role.rbac.authorization.k8s.io "${ref.name}" not found`);
  }
  if (ref.kind === 'ClusterRole') {
    const role = objects.getClusterRole(ref.name);
    return role ? (role.rules ?? []) : new RuleResolutionError(`clusterrole.rbac.authorization.k8s.io "${ref.name}" not found`);
  }
  return new RuleResolutionError(`unsupported role reference kind: "${ref.kind}"`);
}

/**
 * Called for each rule that applies to the user (with a lazily built
 * description of where it came from), or with an error for a binding whose
 * role is missing. Returning false stops the walk.
 */
export type RuleVisitor = (source: () => string, rule: PolicyRule | undefined, err: RuleResolutionError | undefined) => boolean;

/**
 * Walks the rules that apply to a user in a namespace: first those of every
 * matching ClusterRoleBinding, then, for a namespaced request, those of the
 * namespace's matching RoleBindings (upstream's VisitRulesFor).
 */
export function visitRulesFor(objects: RbacObjects, user: RbacUser, namespace: string, visit: RuleVisitor): void {
  for (const crb of objects.listClusterRoleBindings()) {
    const subject = crb.subjects?.find((s) => subjectMatches(user, s, ''));
    if (!subject) continue;
    const rules = roleReferenceRules(objects, crb.roleRef, '');
    if (rules instanceof RuleResolutionError) {
      if (!visit(() => '', undefined, rules)) return;
      continue;
    }
    const source = () => `ClusterRoleBinding "${crb.metadata?.name ?? ''}" of ${crb.roleRef.kind} "${crb.roleRef.name}" to ${describeSubject(subject, '')}`;
    for (const rule of rules) if (!visit(source, rule, undefined)) return;
  }
  if (!namespace) return;
  for (const rb of objects.listRoleBindings(namespace)) {
    const subject = rb.subjects?.find((s) => subjectMatches(user, s, namespace));
    if (!subject) continue;
    const rules = roleReferenceRules(objects, rb.roleRef, namespace);
    if (rules instanceof RuleResolutionError) {
      if (!visit(() => '', undefined, rules)) return;
      continue;
    }
    const source = () => `RoleBinding "${rb.metadata?.name ?? ''}/${namespace}" of ${rb.roleRef.kind} "${rb.roleRef.name}" to ${describeSubject(subject, namespace)}`;
    for (const rule of rules) if (!visit(source, rule, undefined)) return;
  }
}

/** Every rule that applies to the user in the namespace, and the bindings that could not be followed. */
export function rulesFor(objects: RbacObjects, user: RbacUser, namespace: string): { rules: PolicyRule[]; errors: RuleResolutionError[] } {
  const rules: PolicyRule[] = [];
  const errors: RuleResolutionError[] = [];
  visitRulesFor(objects, user, namespace, (_source, rule, err) => {
    if (rule) rules.push(rule);
    if (err) errors.push(err);
    return true;
  });
  return { rules, errors };
}

/** Upstream's aggregate error text: one message alone, several as `[a, b]`. */
export function aggregateMessage(errors: readonly Error[]): string {
  return errors.length === 1 ? errors[0].message : `[${errors.map((e) => e.message).join(', ')}]`;
}
