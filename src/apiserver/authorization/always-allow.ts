import { SYSTEM_AUTHENTICATED } from '../authentication/user-info.js';
import { NO_OPINION, type Attributes, type AuthorizationResult, type Authorizer } from './authorizer.js';

/** Allows every authenticated user everything: today's policy, until RBAC replaces it. */
export class AlwaysAllowAuthenticated implements Authorizer {
  readonly name = 'AlwaysAllowAuthenticated';

  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    return attrs.user.groups.includes(SYSTEM_AUTHENTICATED) ? { decision: 'Allow', reason: '' } : NO_OPINION;
  }
}
