import type { Secret } from 'kubernetes-types/core/v1.js';
import { BOOTSTRAP_TOKEN_SECRET_TYPE, bootstrapTokenExpired, secretValue, TOKEN_KEYS } from '../../api/bootstrap-token.js';
import type { Lister } from '../../client/cache/lister.js';
import type { ReconcileResult, Reconciler } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isConflict, isNotFound } from '../../client/rest/error-predicates.js';
import { SECRETS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

/**
 * Upstream's tokencleaner: a bootstrap token Secret whose `expiration` has
 * passed is deleted (guarded by its uid); one not yet expired is looked at
 * again when it expires.
 */
export class TokenCleanerReconciler implements Reconciler {
  constructor(private readonly o: { client: Client; secrets: Lister<Secret>; clock?: Clock }) {}

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const secret = this.o.secrets.get(key);
    if (!secret || secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || secret.metadata?.deletionTimestamp) return;
    const now = new Date((this.o.clock ?? realClock).now());
    if (!bootstrapTokenExpired(secret, now)) {
      const exp = Date.parse(secretValue(secret, TOKEN_KEYS.expiration) ?? '');
      return Number.isNaN(exp) ? undefined : { requeueAfter: Math.max(1000, exp - now.getTime()) };
    }
    try {
      await this.o.client
        .resource<Secret>(SECRETS)
        .namespace(secret.metadata!.namespace!)
        .delete(secret.metadata!.name!, { preconditions: { uid: secret.metadata?.uid }, signal });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
}
