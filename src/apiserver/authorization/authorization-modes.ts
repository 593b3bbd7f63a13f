import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer } from './always.js';
import type { Authorizer } from './authorizer.js';
import { NodeAuthorizer } from './node/node-authorizer.js';
import { PrivilegedGroupsAuthorizer } from './privileged-groups.js';
import { RbacAuthorizer } from './rbac/rbac-authorizer.js';
import type { RbacObjects } from './rbac/rbac-objects.js';
import type { NodeGraphSource } from './node/node-graph.js';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC'] as const;
export const DEFAULT_AUTHORIZATION_MODES = 'Node,RBAC';

export class AuthorizationModeError extends Error {
  override readonly name = 'AuthorizationModeError';
}

/** Parses `--authorization-mode` (a comma-separated, ordered list), as upstream validates it. */
export function parseAuthorizationModes(flag: string): string[] {
  const modes = flag.split(',').map((m) => m.trim());
  if (modes.length === 0 || modes.some((m) => m === '')) throw new AuthorizationModeError('at least one authorization-mode must be passed');
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) {
      throw new AuthorizationModeError(`authorization-mode "${m}" is not a valid mode (valid: ${AUTHORIZATION_MODES.join(', ')})`);
    }
  }
  const dup = modes.find((m, i) => modes.indexOf(m) !== i);
  if (dup) throw new AuthorizationModeError(`authorization-mode "${dup}" has mode specified more than once`);
  return modes;
}

/**
 * The authorizer chain for the modes, in order, after upstream's
 * privileged-groups authorizer (system:masters may do everything).
 */
export function authorizersFor(modes: readonly string[], deps: { rbac: RbacObjects; nodeGraph: NodeGraphSource }): Authorizer[] {
  const chain: Authorizer[] = [new PrivilegedGroupsAuthorizer()];
  for (const mode of modes) {
    switch (mode) {
      case 'AlwaysAllow':
        chain.push(new AlwaysAllowAuthorizer());
        break;
      case 'AlwaysDeny':
        chain.push(new AlwaysDenyAuthorizer());
        break;
      case 'Node':
        chain.push(new NodeAuthorizer(deps.nodeGraph));
        break;
      case 'RBAC':
        chain.push(new RbacAuthorizer(deps.rbac));
        break;
    }
  }
  return chain;
}
