import type { ClusterRoleBinding, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** Users and groups live in the RBAC group; service accounts in the core group. */
function setSubjectDefaults(subject: Subject): void {
  if (subject.apiGroup) return;
  if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = RBAC_GROUP;
}

/** Upstream's SetDefaults_RoleBinding / ClusterRoleBinding and SetDefaults_Subject. */
export function setBindingDefaults(binding: RoleBinding | ClusterRoleBinding): void {
  // roleRef is a struct upstream: a missing one is zero-valued, then defaulted
  binding.roleRef ??= { apiGroup: '', kind: '', name: '' };
  if (!binding.roleRef.apiGroup) binding.roleRef.apiGroup = RBAC_GROUP;
  for (const s of binding.subjects ?? []) setSubjectDefaults(s);
}
