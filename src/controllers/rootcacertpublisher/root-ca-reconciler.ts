import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { CONFIG_MAPS } from '../../api/resource-refs.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isAlreadyExists, isForbidden, isNotFound } from '../../client/rest/error-predicates.js';

export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/**
 * Upstream's root-ca-cert-publisher: every active namespace has the
 * `kube-root-ca.crt` ConfigMap holding the cluster CA as `ca.crt` (what the
 * projected service-account volume mounts), put back when changed or deleted.
 */
export class RootCaReconciler implements Reconciler {
  constructor(private readonly o: { client: Client; caPem: () => Promise<string>; namespaces: Lister<Namespace>; configMaps: Lister<ConfigMap> }) {}

  async reconcile(namespace: string, signal: AbortSignal): Promise<void> {
    const ns = this.o.namespaces.get(namespace);
    if (!ns || ns.metadata?.deletionTimestamp || ns.status?.phase === 'Terminating') return;
    const ca = await this.o.caPem();
    const current = this.o.configMaps.namespace(namespace).get(ROOT_CA_CONFIG_MAP);
    const cms = this.o.client.resource<ConfigMap>(CONFIG_MAPS).namespace(namespace);
    try {
      if (!current) {
        await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIG_MAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } }, data: { 'ca.crt': ca } }, { signal });
      } else if (current.data?.['ca.crt'] !== ca || Object.keys(current.data ?? {}).length !== 1 || current.metadata?.annotations?.[DESCRIPTION_ANNOTATION] !== DESCRIPTION) {
        const next = structuredClone(current) as ConfigMap;
        next.data = { 'ca.crt': ca };
        next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION } };
        await cms.update(next, { signal });
      }
    } catch (err) {
      // made meanwhile (or the namespace is going away): the next event brings us back if needed
      if (isAlreadyExists(err) || isForbidden(err) || isNotFound(err)) return;
      throw err;
    }
  }
}
