import { SYSTEM_MASTERS } from '../authentication/user-info.js';
import { NO_OPINION, type Attributes, type AuthorizationResult, type Authorizer } from './authorizer.js';

/**
 * Members of system:masters may do everything, whatever the other
 * authorizers say (upstream's privileged-groups authorizer, always first in
 * the chain): the admin kubeconfig keeps working before and without RBAC.
 */
export class PrivilegedGroupsAuthorizer implements Authorizer {
  readonly name = 'PrivilegedGroups';

  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    return attrs.user.groups.includes(SYSTEM_MASTERS) ? { decision: 'Allow', reason: '' } : NO_OPINION;
  }
}
