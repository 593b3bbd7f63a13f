import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { ApiError, qualifiedResource } from '../../../machinery/api-error.js';
import { compactRules, compactString, uncoveredRules } from './covers.js';
import type { RbacObjects } from './rbac-objects.js';
import type { RuleRequest } from './rule-matches.js';
import { aggregateMessage, roleReferenceRules, RuleResolutionError, rulesFor, type RbacUser } from './rule-resolver.js';

/**
 * Escalation prevention on RBAC writes, as upstream's policy-based storage:
 * a user may only create or change a role holding rules they hold
 * themselves, and only bind a role whose rules they hold, unless they may
 * `escalate` that role or `bind` it (or are in system:masters).
 */

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const FULL_AUTHORITY: PolicyRule[] = [
  { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
  { nonResourceURLs: ['*'], verbs: ['*'] },
];

/** Asks the whole authorizer chain about an `escalate` or `bind` request. */
export type AllowedFunc = (attrs: RuleRequest & { user: RbacUser; namespace: string }) => Promise<boolean>;

export interface EscalationDeps {
  objects: RbacObjects;
  allowed: AllowedFunc;
}

function forbiddenWrite(resource: string, name: string, message: string): ApiError {
  const gr = { group: RBAC_GROUP, resource };
  return new ApiError(403, 'Forbidden', `${qualifiedResource(gr)} "${name}" is forbidden: ${message}`, { name, group: RBAC_GROUP, kind: resource });
}

/** Go's %q of a string slice. */
const quoteList = (values: readonly string[]) => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

/** Upstream's ConfirmNoEscalation: the message, or undefined when the user holds every rule. */
export function escalationMessage(objects: RbacObjects, user: RbacUser, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owner = rulesFor(objects, user, namespace);
  const missing = uncoveredRules(owner.rules, rules);
  if (missing.length === 0) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user "${user.name}" (groups=${quoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owner.errors.length) msg += `; resolution errors: [${owner.errors.map((e) => e.message).join(' ')}]`;
  return msg;
}

const isPrivileged = (user: RbacUser) => user.groups.includes('system:masters');

/** Checks a Role or ClusterRole about to be written; resolves to the 403 to answer, if any. */
export async function checkRoleWrite(
  kind: 'Role' | 'ClusterRole',
  role: Role | ClusterRole,
  user: RbacUser,
  deps: EscalationDeps,
): Promise<ApiError | undefined> {
  if (isPrivileged(user)) return undefined;
  const resource = kind === 'Role' ? 'roles' : 'clusterroles';
  const name = role.metadata?.name ?? '';
  const namespace = role.metadata?.namespace ?? '';
  const escalate = { user, verb: 'escalate', resourceRequest: true, apiGroup: RBAC_GROUP, resource, subresource: '', name, namespace, path: '' };
  if (await deps.allowed(escalate)) return undefined;
  const msg = escalationMessage(deps.objects, user, namespace, role.rules ?? []);
  if (msg) return forbiddenWrite(resource, name, msg);
  if (kind === 'ClusterRole' && (role as ClusterRole).aggregationRule && escalationMessage(deps.objects, user, '', FULL_AUTHORITY)) {
    return forbiddenWrite(resource, name, 'must have cluster-admin privileges to use the aggregationRule');
  }
  return undefined;
}

/** Checks a RoleBinding or ClusterRoleBinding about to be written. */
export async function checkBindingWrite(
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  binding: RoleBinding | ClusterRoleBinding,
  user: RbacUser,
  deps: EscalationDeps,
): Promise<ApiError | undefined> {
  if (isPrivileged(user)) return undefined;
  const resource = kind === 'RoleBinding' ? 'rolebindings' : 'clusterrolebindings';
  const name = binding.metadata?.name ?? '';
  const namespace = binding.metadata?.namespace ?? '';
  const ref = binding.roleRef;
  if (ref.kind === 'Role' || ref.kind === 'ClusterRole') {
    const bind = {
      user,
      verb: 'bind',
      resourceRequest: true,
      apiGroup: ref.apiGroup,
      resource: ref.kind === 'Role' ? 'roles' : 'clusterroles',
      subresource: '',
      name: ref.name,
      namespace,
      path: '',
    };
    if (await deps.allowed(bind)) return undefined;
  }
  const rules = roleReferenceRules(deps.objects, ref, namespace);
  if (rules instanceof RuleResolutionError) return forbiddenWrite(resource, name, aggregateMessage([rules]));
  const msg = escalationMessage(deps.objects, user, namespace, rules);
  return msg ? forbiddenWrite(resource, name, msg) : undefined;
}
