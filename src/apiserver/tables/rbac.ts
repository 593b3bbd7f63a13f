import type { ClusterRoleBinding, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './columns.js';
import { column, convertor, type TableConvertor } from './table-convertor.js';

/**
 * RoleBinding and ClusterRoleBinding tables (Roles and ClusterRoles have no
 * printer upstream, so they get the default Name / Created At table).
 */

/** Upstream's SubjectsStrings: users, groups and `namespace/name` service accounts. */
export function subjectsStrings(subjects: Subject[] | undefined): [users: string, groups: string, serviceAccounts: string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of subjects ?? []) {
    if (s.kind === 'ServiceAccount') sas.push(`${s.namespace ?? ''}/${s.name}`);
    else if (s.kind === 'User') users.push(s.name);
    else if (s.kind === 'Group') groups.push(s.name);
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function bindingTable(kind: 'roleBinding' | 'clusterRoleBinding', roleRefDoc: string): TableConvertor {
  return convertor<RoleBinding | ClusterRoleBinding>(
    [
      NAME_COLUMN,
      column('Role', 'string', roleRefDoc),
      AGE_COLUMN,
      column('Users', 'string', `Users in the ${kind}`, { priority: 1 }),
      column('Groups', 'string', `Groups in the ${kind}`, { priority: 1 }),
      column('ServiceAccounts', 'string', `ServiceAccounts in the ${kind}`, { priority: 1 }),
    ],
    (b, now) => [
      b.metadata?.name ?? '',
      `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}`,
      translateTimestampSince(b.metadata?.creationTimestamp, now),
      ...subjectsStrings(b.subjects),
    ],
  );
}

export const roleBindingTable = bindingTable(
  'roleBinding',
  'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
);

export const clusterRoleBindingTable = bindingTable(
  'clusterRoleBinding',
  'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
);
