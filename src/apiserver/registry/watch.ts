import type { KubeObject } from '../../api/object.js';
import { StorageError } from '../../storage/errors.js';
import type { WatchEvent as StorageEvent } from '../../storage/storage.js';
import { apiVersionOf } from '../../api/resource-info.js';
import { decodeShared } from './codec.js';
import { parseResourceVersion, type Filter, type RegistryStore } from './registry-store.js';
import { isWatchEnd, storageErrorToApiError } from './storage-errors.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface ObjectEvent {
  type: WatchEventType;
  object: KubeObject;
}

export interface WatchParams {
  resourceVersion?: string;
  filter?: Filter;
  signal: AbortSignal;
  /** Upstream's sendInitialEvents: true streams the state first, false never; unset: only for resourceVersion "" or "0". */
  sendInitialEvents?: boolean;
  /** After the initial events of sendInitialEvents=true, a BOOKMARK annotated `k8s.io/initial-events-end` (allowWatchBookmarks). */
  initialEventsEndBookmark?: boolean;
  /**
   * Told a resourceVersion once every event up to it that passes the filter
   * has been yielded: the store's revision (its watch cache's), which moves
   * on with writes the filter drops and with other resources. About every
   * `progressIntervalMs`.
   */
  onProgress?: (resourceVersion: number) => void;
  progressIntervalMs?: number;
}

/** The annotation on the bookmark that ends a watch-list's initial events. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/**
 * Watches objects of one store. Without a resourceVersion (or with "0") the
 * watch starts with a synthetic ADDED for every existing object, then follows
 * changes; with one, it replays every change after it. Selector transitions
 * become ADDED/DELETED, as upstream's cacheWatcher does.
 */
export async function* watchObjects(store: RegistryStore, namespace: string, params: WatchParams): AsyncGenerator<ObjectEvent> {
  const filter = params.filter;
  const rv = params.resourceVersion;
  const unset = rv === undefined || rv === '' || rv === '0';
  let from: number;
  if (params.sendInitialEvents === true) {
    // a watch-list: the state at least as new as rv (unset: a consistent read; "0": any), then the bookmark that ends it
    const list = await store.list(namespace, { filter, resourceVersion: rv, resourceVersionMatch: unset ? undefined : 'NotOlderThan' });
    for (const item of list.items) yield { type: 'ADDED', object: item };
    const listed = list.metadata.resourceVersion ?? '0';
    if (params.initialEventsEndBookmark) {
      yield { type: 'BOOKMARK', object: { kind: store.info.kind, apiVersion: apiVersionOf(store.info), metadata: { resourceVersion: listed, annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } } };
    }
    from = Number(listed) + 1;
  } else if (unset && params.sendInitialEvents === false) {
    // no state, only what changes from now on
    from = (await store.backing.currentRevision()) + 1;
  } else if (unset) {
    const list = await store.list(namespace, { filter });
    for (const item of list.items) yield { type: 'ADDED', object: item };
    from = Number(list.metadata.resourceVersion) + 1;
  } else {
    const n = parseResourceVersion(rv);
    await store.waitForRevision(n);
    from = n + 1;
  }
  const progress = params.onProgress ? { onProgress: params.onProgress, progressIntervalMs: params.progressIntervalMs } : {};
  const events = store.backing.watch(store.prefix(namespace), { startRevision: from, signal: params.signal, ...progress });
  try {
    for await (const ev of events) {
      const out = toObjectEvent(ev, filter);
      if (out) yield out;
    }
  } catch (err) {
    // a watcher storage closed (too slow, cache restarting) ends cleanly: its client resumes from its last resourceVersion
    if (isWatchEnd(err)) return;
    if (err instanceof StorageError) throw storageErrorToApiError(err, { verb: 'watch', resourceVersion: from - 1 });
    throw err;
  }
}

/*
 * The watch cache hands the same event objects to every watcher, and
 * decodeShared decodes each stored value once (shared with the write that
 * stored it): one decode per event, not one per watcher. Decoded objects are
 * shared and must be treated as read-only.
 */
function toObjectEvent(ev: StorageEvent, filter: Filter | undefined): ObjectEvent | undefined {
  const revision = ev.kv.modRevision;
  if (ev.type === 'DELETE') {
    const obj = decodeShared(ev.prevKv ?? ev.kv, revision);
    return !filter || filter(obj) ? { type: 'DELETED', object: obj } : undefined;
  }
  const cur = decodeShared(ev.kv);
  if (!filter) return { type: ev.prevKv ? 'MODIFIED' : 'ADDED', object: cur };
  const curPasses = filter(cur);
  if (!ev.prevKv) return curPasses ? { type: 'ADDED', object: cur } : undefined;
  const prev = decodeShared(ev.prevKv, revision);
  const prevPasses = filter(prev);
  if (curPasses && prevPasses) return { type: 'MODIFIED', object: cur };
  if (curPasses) return { type: 'ADDED', object: cur };
  if (prevPasses) return { type: 'DELETED', object: prev };
  return undefined;
}
