import type { IncomingMessage } from 'node:http';
import { AuthenticationError, type Authenticated, type Authenticator } from './authenticator.js';
import { bearerToken } from './bearer-token.js';

/**
 * The credential authenticators, then anonymous only when nobody recognised
 * the request and nobody saw bad credentials (upstream's union.NewFailOnError
 * around the chain): a bad or unknown bearer token is a 401, not anonymous.
 */
export class CredentialsThenAnonymous implements Authenticator {
  readonly name = 'credentials-then-anonymous';

  constructor(
    private readonly authenticators: readonly Authenticator[],
    private readonly anonymous: Authenticator | undefined,
  ) {}

  async authenticate(req: IncomingMessage, path: string): Promise<Authenticated | undefined> {
    let failed = false;
    for (const a of this.authenticators) {
      try {
        const result = await a.authenticate(req, path);
        if (result) return result;
      } catch (err) {
        if (!(err instanceof AuthenticationError)) throw err;
        failed = true;
      }
    }
    // a token nobody recognises is a bad credential too
    if (failed || bearerToken(req) !== undefined) throw new AuthenticationError('invalid bearer token');
    return this.anonymous?.authenticate(req, path);
  }
}
