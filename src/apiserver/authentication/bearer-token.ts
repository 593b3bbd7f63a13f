import type { IncomingMessage } from 'node:http';

/** The token of an `Authorization: Bearer <token>` header, if any (upstream's bearertoken authenticator). */
export function bearerToken(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S.*)$/i.exec(header.trim());
  return m ? m[1].trim() : undefined;
}

/** An authenticator of bare tokens (shared by the request path and TokenReview). */
export interface TokenAuthenticator {
  readonly name: string;
  /** undefined: not a token of this kind; throws AuthenticationError when it is one but invalid. */
  authenticateToken(token: string, audiences?: readonly string[]): Promise<{ user: import('./user-info.js').UserInfo; audiences?: string[] } | undefined>;
}
