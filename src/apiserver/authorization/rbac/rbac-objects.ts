import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';

/**
 * Read access to the RBAC objects the authorizer resolves rules from
 * (upstream's RoleGetter, RoleBindingLister, ClusterRoleGetter,
 * ClusterRoleBindingLister). Synchronous: answered from memory, as
 * authorization runs on every request.
 */
export interface RbacObjects {
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
  listRoleBindings(namespace: string): readonly RoleBinding[];
  listClusterRoleBindings(): readonly ClusterRoleBinding[];
}

type Kind = 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';
type AnyRbacObject = Role | ClusterRole | RoleBinding | ClusterRoleBinding;

/** RbacObjects held in maps; fed by a watch in the API server, by hand in tests. */
export class InMemoryRbacObjects implements RbacObjects {
  private readonly roles = new Map<string, Role>();
  private readonly clusterRoles = new Map<string, ClusterRole>();
  private readonly roleBindings = new Map<string, Map<string, RoleBinding>>();
  private readonly clusterRoleBindings = new Map<string, ClusterRoleBinding>();

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles.get(`${namespace}/${name}`);
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.get(name);
  }

  listRoleBindings(namespace: string): readonly RoleBinding[] {
    return [...(this.roleBindings.get(namespace)?.values() ?? [])];
  }

  listClusterRoleBindings(): readonly ClusterRoleBinding[] {
    return [...this.clusterRoleBindings.values()];
  }

  /** Adds or replaces an object (its kind says which). */
  put(kind: Kind, obj: AnyRbacObject): void {
    const name = obj.metadata?.name ?? '';
    const ns = obj.metadata?.namespace ?? '';
    switch (kind) {
      case 'Role':
        this.roles.set(`${ns}/${name}`, obj as Role);
        break;
      case 'ClusterRole':
        this.clusterRoles.set(name, obj as ClusterRole);
        break;
      case 'RoleBinding': {
        let inNs = this.roleBindings.get(ns);
        if (!inNs) this.roleBindings.set(ns, (inNs = new Map()));
        inNs.set(name, obj as RoleBinding);
        break;
      }
      case 'ClusterRoleBinding':
        this.clusterRoleBindings.set(name, obj as ClusterRoleBinding);
    }
  }

  delete(kind: Kind, namespace: string, name: string): void {
    switch (kind) {
      case 'Role':
        this.roles.delete(`${namespace}/${name}`);
        break;
      case 'ClusterRole':
        this.clusterRoles.delete(name);
        break;
      case 'RoleBinding':
        this.roleBindings.get(namespace)?.delete(name);
        break;
      case 'ClusterRoleBinding':
        this.clusterRoleBindings.delete(name);
    }
  }

  /** Drops every object of a kind (before a relist). */
  clear(kind: Kind): void {
    ({ Role: this.roles, ClusterRole: this.clusterRoles, RoleBinding: this.roleBindings, ClusterRoleBinding: this.clusterRoleBindings })[kind].clear();
  }
}
