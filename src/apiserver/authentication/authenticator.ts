import type { IncomingMessage } from 'node:http';
import { unauthorized } from '../../machinery/api-error.js';
import { SYSTEM_AUTHENTICATED, SYSTEM_UNAUTHENTICATED, type UserInfo } from './user-info.js';

/** What an authenticator learned from a request. */
export interface Authenticated {
  user: UserInfo;
}

/**
 * One way of recognising a user (client certificates, bearer tokens, …).
 * Returns undefined when the request carries no credentials of its kind;
 * throws (an `AuthenticationError`) when it carries some that are invalid.
 */
export interface Authenticator {
  readonly name: string;
  authenticate(req: IncomingMessage, path: string): Promise<Authenticated | undefined>;
}

/** Credentials were presented but are not valid (an expired token, an unknown certificate). */
export class AuthenticationError extends Error {
  override readonly name = 'AuthenticationError';
}

/**
 * Runs the authenticators in order; the first that recognises the request
 * wins, as upstream's union authenticator. Nobody recognising it is a 401.
 * Authenticated users get the `system:authenticated` group.
 */
export class AuthenticatorChain implements Authenticator {
  readonly name = 'union';

  constructor(private readonly authenticators: readonly Authenticator[]) {}

  async authenticate(req: IncomingMessage, path: string): Promise<Authenticated> {
    for (const authenticator of this.authenticators) {
      let result: Authenticated | undefined;
      try {
        result = await authenticator.authenticate(req, path);
      } catch (err) {
        // invalid credentials of one kind do not stop another authenticator from recognising the request
        if (err instanceof AuthenticationError) continue;
        throw err;
      }
      if (result) return { user: withAuthenticatedGroup(result.user) };
    }
    throw unauthorized();
  }
}

/** Adds `system:authenticated` unless the user is anonymous (upstream's AuthenticatedGroupAdder). */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(SYSTEM_AUTHENTICATED) || user.groups.includes(SYSTEM_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, SYSTEM_AUTHENTICATED] };
}
