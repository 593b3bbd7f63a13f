import type { IncomingMessage } from 'node:http';
import type { UserInfo } from './user-info.js';

/*
 * The user travels with the request (upstream: request.WithUser on the
 * context). Keyed by the request object, so it goes away with it.
 */
const users = new WeakMap<IncomingMessage, UserInfo>();

export function withUser(req: IncomingMessage, user: UserInfo): void {
  users.set(req, user);
}

/** The request's user, once authentication (and impersonation) have run. */
export function userFrom(req: IncomingMessage): UserInfo | undefined {
  return users.get(req);
}
