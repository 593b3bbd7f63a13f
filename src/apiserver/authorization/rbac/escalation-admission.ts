import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { AdmissionAttributes, Operation, ValidatingAdmission } from '../../admission/admission.js';
import type { Authorizer } from '../authorizer.js';
import { checkBindingWrite, checkRoleWrite } from './escalation.js';
import type { RbacObjects } from './rbac-objects.js';

const KINDS: Readonly<Record<string, 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding'>> = {
  roles: 'Role',
  clusterroles: 'ClusterRole',
  rolebindings: 'RoleBinding',
  clusterrolebindings: 'ClusterRoleBinding',
};

/**
 * RBAC escalation prevention on every create and update of a role or
 * binding (upstream does this in the RBAC registry's policy-based storage;
 * here it runs with the validating admission chain, which sees the final
 * object and the user).
 */
export class RbacEscalationPrevention implements ValidatingAdmission {
  readonly name = 'RBACEscalationPrevention';

  constructor(
    private readonly objects: RbacObjects,
    private readonly authorizer: () => Authorizer,
  ) {}

  handles(operation: Operation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== 'rbac.authorization.k8s.io' || attrs.subresource || !attrs.object) return;
    const kind = KINDS[attrs.resource.resource];
    if (!kind) return;
    const deps = {
      objects: this.objects,
      allowed: async (a: Parameters<Authorizer['authorize']>[0]) => (await this.authorizer().authorize(a)).decision === 'Allow',
    };
    const err =
      kind === 'Role' || kind === 'ClusterRole'
        ? await checkRoleWrite(kind, attrs.object as unknown as Role | ClusterRole, attrs.user, {
            ...deps,
            allowed: (a) => deps.allowed({ ...a, apiVersion: '*', user: attrs.user }),
          })
        : await checkBindingWrite(kind, attrs.object as unknown as RoleBinding | ClusterRoleBinding, attrs.user, {
            ...deps,
            allowed: (a) => deps.allowed({ ...a, apiVersion: '*', user: attrs.user }),
          });
    if (err) throw err;
  }
}
