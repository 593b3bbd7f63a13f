import { StorageError } from '../../storage/errors.js';
import type { DeleteResult, GetResult, KeyValue, ListOptions, ListResult, Storage, WatchEvent, WatchOptions, WriteResult } from '../../storage/storage.js';
import { encodeObject } from '../registry/codec.js';
import type { KubeObject } from '../../api/object.js';
import type { MetricsSnapshot } from './metrics-scraper.js';

/**
 * The read-only storage the metrics resources are served from: the
 * scraper's latest snapshot, laid out under `keyRoot` as the generic store
 * expects (`<root><namespace>/<name>` or `<root><name>`), so get, list,
 * label and field selectors and paging work as for any resource. Nothing
 * is persisted; every write is refused.
 */
export class MetricsStorage implements Storage {
  private cache?: { revision: number; kvs: KeyValue[] };

  constructor(
    private readonly snapshot: () => MetricsSnapshot,
    private readonly resource: 'nodes' | 'pods',
    private readonly keyRoot: string,
  ) {}

  private kvs(): KeyValue[] {
    const snap = this.snapshot();
    if (this.cache?.revision === snap.revision) return this.cache.kvs;
    const objects = (this.resource === 'nodes' ? snap.nodes : snap.pods) as unknown as KubeObject[];
    const kvs = objects
      .map((o) => {
        const key = `${this.keyRoot}${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name ?? ''}`;
        return { key, value: encodeObject(o), createRevision: snap.revision, modRevision: snap.revision };
      })
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.cache = { revision: snap.revision, kvs };
    return kvs;
  }

  async currentRevision(): Promise<number> {
    return this.snapshot().revision;
  }

  async compactedRevision(): Promise<number> {
    return 0;
  }

  async get(key: string): Promise<GetResult> {
    return { kv: this.kvs().find((kv) => kv.key === key), revision: this.snapshot().revision };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const all = this.kvs().filter((kv) => kv.key.startsWith(prefix) && (!opts.startAfter || kv.key > opts.startAfter));
    const kvs = opts.limit ? all.slice(0, opts.limit) : all;
    return { kvs, revision: this.snapshot().revision, more: kvs.length < all.length, remaining: all.length - kvs.length };
  }

  async count(prefix: string): Promise<number> {
    return this.kvs().filter((kv) => kv.key.startsWith(prefix)).length;
  }

  create(): Promise<WriteResult> {
    return Promise.reject(readOnly());
  }

  update(): Promise<WriteResult> {
    return Promise.reject(readOnly());
  }

  delete(): Promise<DeleteResult> {
    return Promise.reject(readOnly());
  }

  async *watch(_prefix: string, opts: WatchOptions): AsyncIterable<WatchEvent> {
    // metrics are not watchable (upstream serves get and list only); an open watch just ends with its signal
    await new Promise<void>((resolve) => (opts.signal.aborted ? resolve() : opts.signal.addEventListener('abort', () => resolve(), { once: true })));
  }

  async compact(): Promise<void> {}

  async close(): Promise<void> {}
}

function readOnly(): StorageError {
  return new StorageError('metrics are read-only');
}
