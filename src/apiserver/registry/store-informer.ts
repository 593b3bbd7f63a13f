import type { KubeObject } from '../../api/object.js';
import type { Logger } from '../../machinery/logger.js';
import { CompactedError } from '../../storage/errors.js';
import { decodeObject, decodeShared } from './codec.js';
import type { RegistryStore } from './registry-store.js';

/** What a store informer tells its owner: a full (re)list, then each change. */
export interface StoreEventHandler {
  replace(items: readonly KubeObject[]): void;
  upsert(obj: KubeObject): void;
  remove(obj: KubeObject): void;
  /**
   * Whether a change to the object at this key (`namespace/name`, or `name`
   * for cluster-scoped kinds) cannot matter to the handler: its upsert is then
   * dropped without decoding the object (deletes are always delivered).
   */
  settled?(name: string): boolean;
  /**
   * The handler never changes the objects it is given: changes then come as
   * the shared decoded objects (decodeShared), which the write and the
   * watchers of the same value already decoded, instead of a private copy.
   */
  readOnly?: boolean;
}

/**
 * The API server's own informer: lists one resource from its store, then
 * follows the storage watch from that revision, relisting when the watch
 * fails or is compacted. For in-memory views authorization reads
 * synchronously (RBAC objects, the Node authorizer's graph). `onSynced` is
 * called after every successful list.
 */
export async function runStoreInformer(
  store: RegistryStore,
  handler: StoreEventHandler,
  opts: { logger: Logger; signal: AbortSignal; onSynced?: () => void; retryMs?: number },
): Promise<void> {
  const { signal, logger } = opts;
  while (!signal.aborted) {
    try {
      const list = await store.list('', {});
      handler.replace(list.items);
      opts.onSynced?.();
      const from = Number(list.metadata.resourceVersion) + 1;
      const prefix = store.prefix('');
      const decode = handler.readOnly ? decodeShared : decodeObject;
      for await (const ev of store.backing.watch(prefix, { startRevision: from, signal })) {
        if (ev.type === 'DELETE') handler.remove(decode(ev.prevKv ?? ev.kv));
        else if (!handler.settled?.(ev.kv.key.slice(prefix.length))) handler.upsert(decode(ev.kv));
      }
    } catch (err) {
      if (signal.aborted) return;
      if (!(err instanceof CompactedError)) logger.warn('store watch failed; relisting', { resource: store.info.resource, error: String(err) });
      await new Promise((r) => setTimeout(r, opts.retryMs ?? 200));
    }
  }
}
