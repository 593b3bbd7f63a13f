import type { Namespace, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isAlreadyExists, isForbidden, isNotFound } from '../../client/rest/error-predicates.js';
import { SERVICE_ACCOUNTS } from '../../api/resource-refs.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

/** Every active namespace has a `default` ServiceAccount (upstream's serviceaccount controller). */
export class ServiceAccountReconciler implements Reconciler {
  constructor(
    private readonly o: { client: Client; namespaces: Lister<Namespace>; serviceAccounts: Lister<ServiceAccount> },
  ) {}

  async reconcile(namespace: string, signal: AbortSignal): Promise<void> {
    const ns = this.o.namespaces.get(namespace);
    if (!ns || ns.metadata?.deletionTimestamp || ns.status?.phase === 'Terminating') return;
    if (this.o.serviceAccounts.namespace(namespace).get(DEFAULT_SERVICE_ACCOUNT)) return;
    try {
      await this.o.client
        .resource<ServiceAccount>(SERVICE_ACCOUNTS)
        .namespace(namespace)
        .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } }, { signal });
    } catch (err) {
      // someone else made it, or the namespace started terminating meanwhile
      if (isAlreadyExists(err) || isForbidden(err) || isNotFound(err)) return;
      throw err;
    }
  }
}
