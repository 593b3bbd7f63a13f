import type { Namespace } from 'kubernetes-types/core/v1.js';
import { asKind } from '../../api/object.js';
import { ApiError, notFound } from '../../machinery/api-error.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes, MutatingAdmission, Operation } from './admission.js';
import { admissionForbidden } from './forbidden.js';

/** Namespaces every cluster keeps (upstream's immortal namespaces). */
const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

/**
 * NamespaceLifecycle admission (in the mutating chain, as upstream, so it
 * answers before validation): new objects only go into namespaces that
 * exist and are not being deleted; the system namespaces cannot be deleted.
 */
export class NamespaceLifecycle implements MutatingAdmission {
  readonly name = 'NamespaceLifecycle';

  constructor(private readonly namespaces: () => RegistryStore) {}

  handles(operation: Operation): boolean {
    return operation === 'CREATE' || operation === 'DELETE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const { group, resource } = attrs.resource;
    if (attrs.operation === 'DELETE') {
      if (group === '' && resource === 'namespaces' && !attrs.subresource && IMMORTAL_NAMESPACES.has(attrs.name)) {
        throw admissionForbidden(attrs, 'this namespace may not be deleted');
      }
      return;
    }
    if (!attrs.namespace) return;
    let ns: Namespace;
    try {
      ns = asKind<Namespace>(await this.namespaces().get('', attrs.namespace)) as Namespace;
    } catch (err) {
      if (ApiError.is(err, 'NotFound')) throw notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
      throw err;
    }
    if (ns.metadata?.deletionTimestamp || ns.status?.phase === 'Terminating') {
      throw admissionForbidden(attrs, `unable to create new content in namespace ${attrs.namespace} because it is being terminated`, [
        { reason: 'NamespaceTerminating', message: `namespace ${attrs.namespace} is being terminated`, field: 'metadata.namespace' },
      ]);
    }
  }
}
