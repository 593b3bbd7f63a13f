import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { Secret } from 'kubernetes-types/core/v1.js';
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  BOOTSTRAP_USER_PREFIX,
  bootstrapTokenExpired,
  bootstrapTokenGroups,
  parseBootstrapToken,
  secretValue,
  TOKEN_KEYS,
} from '../../api/bootstrap-token.js';
import { ApiError } from '../../machinery/api-error.js';
import type { ApiRegistry } from '../api-registry.js';
import type { Authenticated, Authenticator } from './authenticator.js';
import { bearerToken, type TokenAuthenticator } from './bearer-token.js';
import { realClock, type Clock } from '../../base/clock.js';

/**
 * Bootstrap tokens (upstream's bootstrap token authenticator): `<id>.<secret>`
 * matching a live, unexpired `bootstrap-token-<id>` Secret in kube-system that
 * allows authentication is `system:bootstrap:<id>` in `system:bootstrappers`
 * and the token's extra groups. Anything else is not ours, so the request
 * ends as a 401 without detail.
 */
export class BootstrapTokenAuthenticator implements Authenticator, TokenAuthenticator {
  readonly name = 'bootstrap-token';

  constructor(
    private readonly registry: ApiRegistry,
    private readonly clock: Clock = realClock,
  ) {}

  async authenticate(req: IncomingMessage): Promise<Authenticated | undefined> {
    const token = bearerToken(req);
    return token === undefined ? undefined : this.authenticateToken(token);
  }

  async authenticateToken(token: string): Promise<Authenticated | undefined> {
    const parsed = parseBootstrapToken(token);
    if (!parsed) return undefined;
    let secret: Secret;
    try {
      secret = (await this.registry.lookup('', 'v1', 'secrets')!.get(BOOTSTRAP_TOKEN_NAMESPACE, `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${parsed.id}`)) as Secret;
    } catch (err) {
      if (ApiError.is(err, 'NotFound')) return undefined;
      throw err;
    }
    if (secret.metadata?.deletionTimestamp || secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || !secret.data) return undefined;
    const stored = Buffer.from(secretValue(secret, TOKEN_KEYS.secret) ?? '');
    const given = Buffer.from(parsed.secret);
    if (stored.length !== given.length || !timingSafeEqual(stored, given)) return undefined;
    if (secretValue(secret, TOKEN_KEYS.id) !== parsed.id) return undefined;
    if (bootstrapTokenExpired(secret, new Date(this.clock.now()))) return undefined;
    if (secretValue(secret, TOKEN_KEYS.usageAuthentication) !== 'true') return undefined;
    let groups: string[];
    try {
      groups = bootstrapTokenGroups(secret);
    } catch {
      return undefined;
    }
    return { user: { name: `${BOOTSTRAP_USER_PREFIX}${parsed.id}`, groups } };
  }
}
