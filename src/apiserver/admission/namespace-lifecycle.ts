import type { Namespace } from 'kubernetes-types/core/v1.js';
import { ApiError, notFound } from '../../machinery/api-error.js';
import type { RegistryStore } from '../registry/registry-store.js';

/**
 * NamespaceLifecycle admission: new objects only go into namespaces that exist
 * and are not being deleted.
 */
export async function admitNamespaceLifecycle(namespaces: RegistryStore, namespace: string): Promise<void> {
  let ns: Namespace;
  try {
    ns = (await namespaces.get('', namespace)) as Namespace;
  } catch (err) {
    if (ApiError.is(err, 'NotFound')) throw notFound({ group: '', resource: 'namespaces' }, namespace);
    throw err;
  }
  if (ns.metadata?.deletionTimestamp || ns.status?.phase === 'Terminating') {
    throw new ApiError(403, 'Forbidden', `unable to create new content in namespace ${namespace} because it is being terminated`, {
      name: namespace,
      kind: 'namespaces',
      causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
    });
  }
}
