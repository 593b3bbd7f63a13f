import type { KeyObject } from 'node:crypto';
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { SECRETS, SERVICE_ACCOUNTS } from '../../api/resource-refs.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isConflict, isNotFound } from '../../client/rest/error-predicates.js';
import {
  SERVICE_ACCOUNT_NAME_ANNOTATION,
  SERVICE_ACCOUNT_NAMESPACE_KEY,
  SERVICE_ACCOUNT_ROOT_CA_KEY,
  SERVICE_ACCOUNT_TOKEN_KEY,
  SERVICE_ACCOUNT_TOKEN_SECRET_TYPE,
  SERVICE_ACCOUNT_UID_ANNOTATION,
  signLegacyToken,
} from '../../machinery/legacy-service-account-token.js';
import type { Logger } from '../../machinery/logger.js';

export interface TokenReconcilerOptions {
  client: Client;
  secrets: Lister<Secret>;
  serviceAccounts: Lister<ServiceAccount>;
  /** The service-account signing key (upstream's --service-account-private-key-file). */
  privateKey: KeyObject;
  /** The CA put in `ca.crt` (upstream's --root-ca-file), if any. */
  rootCa?: () => Promise<string | undefined>;
  logger: Logger;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const text = (v: string | undefined): string => (v ? Buffer.from(v, 'base64').toString() : '');

/** The `<namespace>/<name>` keys of the token Secrets naming this service account (for its events). */
export function tokenSecretsOf(secrets: Lister<Secret>, sa: ServiceAccount): string[] {
  const ns = sa.metadata?.namespace ?? '';
  return secrets
    .namespace(ns)
    .list()
    .filter((s) => s.type === SERVICE_ACCOUNT_TOKEN_SECRET_TYPE && s.metadata?.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION] === sa.metadata?.name)
    .map((s) => `${ns}/${s.metadata?.name ?? ''}`);
}

/**
 * Upstream's "serviceaccount-token" controller (the legacy token
 * controller): a Secret of type `kubernetes.io/service-account-token` naming
 * a service account in its `kubernetes.io/service-account.name` annotation
 * gets that account's uid annotation and `token` (a legacy JWT), `ca.crt`
 * and `namespace` data; one whose account is gone (or has another uid) is
 * deleted, which is also what deleting a service account does to its tokens.
 * A token already there is kept.
 */
export class TokenReconciler implements Reconciler {
  constructor(private readonly o: TokenReconcilerOptions) {}

  async reconcile(key: string, signal: AbortSignal): Promise<void> {
    const [namespace, name] = key.split('/');
    const cached = this.o.secrets.namespace(namespace).get(name);
    if (!cached || cached.type !== SERVICE_ACCOUNT_TOKEN_SECRET_TYPE || cached.metadata?.deletionTimestamp) return;
    const saName = cached.metadata?.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION] ?? '';
    const saUid = cached.metadata?.annotations?.[SERVICE_ACCOUNT_UID_ANNOTATION] ?? '';
    const sa = await this.serviceAccount(namespace, saName, signal);
    if (!sa || (saUid && sa.metadata?.uid !== saUid)) {
      await this.deleteSecret(cached, signal);
      return;
    }
    const ca = (await this.o.rootCa?.()) ?? '';
    if (!this.needsUpdate(cached, sa, ca)) return;

    // the cache may trail: decide on the live object, and never replace a token someone else just wrote
    const secrets = this.o.client.resource<Secret>(SECRETS).namespace(namespace);
    let live: Secret;
    try {
      live = await secrets.get(name, { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (live.type !== SERVICE_ACCOUNT_TOKEN_SECRET_TYPE || live.metadata?.deletionTimestamp || !this.needsUpdate(live, sa, ca)) return;
    const next = structuredClone(live);
    const data = { ...next.data };
    if (ca) data[SERVICE_ACCOUNT_ROOT_CA_KEY] = b64(ca);
    data[SERVICE_ACCOUNT_NAMESPACE_KEY] = b64(namespace);
    if (!text(data[SERVICE_ACCOUNT_TOKEN_KEY])) {
      const token = await signLegacyToken(this.o.privateKey, { namespace, serviceAccountName: saName, serviceAccountUid: sa.metadata?.uid ?? '', secretName: name });
      data[SERVICE_ACCOUNT_TOKEN_KEY] = b64(token);
    }
    next.data = data;
    next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, [SERVICE_ACCOUNT_NAME_ANNOTATION]: saName, [SERVICE_ACCOUNT_UID_ANNOTATION]: sa.metadata?.uid ?? '' } };
    try {
      await secrets.update(next, { signal });
      this.o.logger.info('populated service account token secret', { namespace, secret: name, serviceAccount: saName });
    } catch (err) {
      // deleted meanwhile; a conflict brings the newer object back through the watch
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }

  private needsUpdate(secret: Secret, sa: ServiceAccount, ca: string): boolean {
    const data = secret.data ?? {};
    return (
      !text(data[SERVICE_ACCOUNT_TOKEN_KEY]) ||
      (ca !== '' && text(data[SERVICE_ACCOUNT_ROOT_CA_KEY]) !== ca) ||
      text(data[SERVICE_ACCOUNT_NAMESPACE_KEY]) !== secret.metadata?.namespace ||
      secret.metadata?.annotations?.[SERVICE_ACCOUNT_UID_ANNOTATION] !== sa.metadata?.uid
    );
  }

  /** From the cache, else from the server (an account made a moment ago must not lose its new secret). */
  private async serviceAccount(namespace: string, name: string, signal: AbortSignal): Promise<ServiceAccount | undefined> {
    if (!name) return undefined;
    const cached = this.o.serviceAccounts.namespace(namespace).get(name);
    if (cached) return cached;
    try {
      return await this.o.client.resource<ServiceAccount>(SERVICE_ACCOUNTS).namespace(namespace).get(name, { signal });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async deleteSecret(secret: Secret, signal: AbortSignal): Promise<void> {
    const namespace = secret.metadata?.namespace ?? '';
    const name = secret.metadata?.name ?? '';
    try {
      await this.o.client.resource<Secret>(SECRETS).namespace(namespace).delete(name, { preconditions: { uid: secret.metadata?.uid }, signal });
      this.o.logger.info('deleted token secret of a missing service account', { namespace, secret: name, serviceAccount: secret.metadata?.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION] });
    } catch (err) {
      // gone already, or replaced by a newer secret of the same name (its own event follows)
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }
}
