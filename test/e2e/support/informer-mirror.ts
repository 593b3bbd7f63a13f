import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { ResourceClient } from '../../../src/client/rest/resource-client.js';
import { DeletedFinalStateUnknown } from '../../../src/client/cache/deleted-final-state-unknown.js';
import type { ResourceEventHandler } from '../../../src/client/cache/resource-event-handler.js';
import { metaNamespaceKey } from '../../../src/client/cache/store.js';

export const CMS = { group: '', version: 'v1', resource: 'configmaps' };

/** Just what a snapshot reads, so client-node's objects (Dates for timestamps) fit too. */
interface Identified {
  metadata?: { namespace?: string; name?: string; resourceVersion?: string };
}

/** key → resourceVersion, sorted: what "the cache equals the server" compares. */
export function snapshot(items: readonly Identified[]): string {
  const entries = items.map((o) => [`${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`, o.metadata?.resourceVersion ?? ''] as const);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

/** A fresh (quorum) list of the resource, as a snapshot. */
export async function freshSnapshot(client: ResourceClient<ConfigMap>): Promise<string> {
  return snapshot((await client.list()).items);
}

export interface DeleteNote {
  key: string;
  /** resourceVersion of the state the handler was given. */
  rv: string;
  tombstone: boolean;
}

/**
 * A handler that rebuilds the cache from notifications alone, so a test can
 * check that handlers, not only the indexer, ended up with the server's state;
 * and that records every delete it was told about.
 */
export class MirrorHandler implements ResourceEventHandler<ConfigMap> {
  readonly objects = new Map<string, ConfigMap>();
  readonly deletes: DeleteNote[] = [];
  adds = 0;
  updates = 0;

  onAdd(obj: ConfigMap): void {
    this.adds++;
    this.objects.set(metaNamespaceKey(obj), obj);
  }

  onUpdate(_old: ConfigMap, obj: ConfigMap): void {
    this.updates++;
    this.objects.set(metaNamespaceKey(obj), obj);
  }

  onDelete(obj: ConfigMap | DeletedFinalStateUnknown<ConfigMap>): void {
    const tombstone = obj instanceof DeletedFinalStateUnknown;
    const key = tombstone ? obj.key : metaNamespaceKey(obj);
    const state = tombstone ? obj.obj : obj;
    this.deletes.push({ key, rv: state.metadata?.resourceVersion ?? '', tombstone });
    this.objects.delete(key);
  }

  snapshot(): string {
    return snapshot([...this.objects.values()]);
  }

  deletedKeys(): string[] {
    return this.deletes.map((d) => d.key).sort();
  }
}
