import type { Namespace } from 'kubernetes-types/core/v1.js';
import { asKind } from '../../api/object.js';
import { ApiError, notFound } from '../../machinery/api-error.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes, MutatingAdmission, Operation } from './admission.js';
import { admissionForbidden } from './forbidden.js';

/** Namespaces every cluster keeps (upstream's immortal namespaces). */
const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

/** How long after its deletion was admitted a namespace is read from the storage, not the cache (upstream's forceLiveLookupTTL). */
const FORCE_LIVE_LOOKUP_MS = 30_000;
/** Namespaces remembered for that at most (upstream's LRU size). */
const FORCE_LIVE_LOOKUP_ENTRIES = 100;

/**
 * NamespaceLifecycle admission (in the mutating chain, as upstream, so it
 * answers before validation): new objects only go into namespaces that
 * exist and are not being deleted; the system namespaces cannot be deleted.
 * Namespaces are read as the watch cache holds them (upstream's lister),
 * from the storage when the cache has none, and for a while after a
 * namespace's deletion was admitted, when the cache may not show it yet.
 */
export class NamespaceLifecycle implements MutatingAdmission {
  readonly name = 'NamespaceLifecycle';
  /** Namespace → until when (ms) it is read from the storage. */
  private readonly forceLiveLookup = new Map<string, number>();

  constructor(
    private readonly namespaces: () => RegistryStore,
    private readonly now: () => number = Date.now,
  ) {}

  handles(operation: Operation): boolean {
    return operation === 'CREATE' || operation === 'DELETE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const { group, resource } = attrs.resource;
    if (attrs.operation === 'DELETE') {
      if (group === '' && resource === 'namespaces' && !attrs.subresource) {
        if (IMMORTAL_NAMESPACES.has(attrs.name)) throw admissionForbidden(attrs, 'this namespace may not be deleted');
        this.lookUpLive(attrs.name);
      }
      return;
    }
    if (!attrs.namespace) return;
    let ns: Namespace;
    try {
      ns = await this.namespace(attrs.namespace);
    } catch (err) {
      if (ApiError.is(err, 'NotFound')) throw notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
      throw err;
    }
    if (terminating(ns)) {
      throw admissionForbidden(attrs, `unable to create new content in namespace ${attrs.namespace} because it is being terminated`, [
        { reason: 'NamespaceTerminating', message: `namespace ${attrs.namespace} is being terminated`, field: 'metadata.namespace' },
      ]);
    }
  }

  /** The namespace from the cache, or from the storage while a recent deletion may not show in the cache yet. */
  private async namespace(name: string): Promise<Namespace> {
    const store = this.namespaces();
    const cached = asKind<Namespace>(await store.getShared('', name)) as Namespace;
    const until = this.forceLiveLookup.get(name);
    if (until === undefined || terminating(cached)) return cached;
    if (until <= this.now()) {
      this.forceLiveLookup.delete(name);
      return cached;
    }
    return asKind<Namespace>(await store.get('', name)) as Namespace;
  }

  private lookUpLive(name: string): void {
    this.forceLiveLookup.delete(name);
    this.forceLiveLookup.set(name, this.now() + FORCE_LIVE_LOOKUP_MS);
    // the oldest entries go first (a Map keeps insertion order)
    for (const oldest of this.forceLiveLookup.keys()) {
      if (this.forceLiveLookup.size <= FORCE_LIVE_LOOKUP_ENTRIES) break;
      this.forceLiveLookup.delete(oldest);
    }
  }
}

function terminating(ns: Namespace): boolean {
  return Boolean(ns.metadata?.deletionTimestamp) || ns.status?.phase === 'Terminating';
}
