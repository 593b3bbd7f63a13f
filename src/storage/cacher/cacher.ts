import type { DeleteResult, GetResult, KeyValue, ListOptions, ListResult, Storage, StorageAlarm, WatchEvent, WatchOptions, WriteResult } from '../storage.js';
import { WatchCache } from './watch-cache.js';

/** Maps a list/watch prefix to the resource prefix whose cache serves it, or undefined (not cached). */
export type ResourcePrefixFunc = (prefix: string) => string | undefined;

/** `/registry/pods/ns/` → `/registry/pods/`: the first two path segments. */
export const defaultResourcePrefix: ResourcePrefixFunc = (prefix) => /^\/[^/]+\/[^/]+\//.exec(prefix)?.[0];

export interface CacherOptions {
  resourcePrefix?: ResourcePrefixFunc;
  /** Recent events kept per resource. Default 10,000. */
  windowSize?: number;
  /** Live events a watcher may lag before it is closed. Default 1,000. */
  watcherBufferSize?: number;
  /** Bytes of stored values a watcher may lag before it is closed. Default 16 MiB. */
  watcherBufferBytes?: number;
  /** How long a consistent list waits for the cache to catch up before reading through. Default 250 ms. */
  freshnessTimeoutMs?: number;
  /** Told when a resource cache opens (+1) or closes (-1) its storage watch. */
  onStorageWatch?: (resourcePrefix: string, delta: 1 | -1) => void;
  /**
   * How often each resource cache asks its storage watch for progress, so
   * its revision (and the bookmarks its watchers get) follows writes to
   * other resources. Default 5,000 ms.
   */
  progressIntervalMs?: number;
}

/**
 * Storage with a watch cache in front (upstream's Cacher). Writes, gets and
 * counts go to the storage; lists at the current revision and watches are
 * served by one WatchCache per resource. A list without a revision is
 * consistent: the cache first catches up with the storage's current revision
 * (asking for watch progress when the backend can report it), and reads
 * through to the storage when it cannot in time. The pages after the first
 * (continue tokens) come from the cache as well, rebuilt at their revision
 * from the current objects and the window's events (upstream's list from a
 * cache snapshot), while the window still holds every event since; a list at
 * an Exact revision, or a page the window cannot rebuild, reads the storage's
 * history. Closing the cacher closes the storage.
 */
export class Cacher implements Storage {
  private readonly caches = new Map<string, WatchCache>();
  private readonly resourcePrefix: ResourcePrefixFunc;
  /** The newest revision any result showed: a watch "from now" starts after it. */
  private seenRevision = 0;
  private closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly opts: CacherOptions = {},
  ) {
    this.resourcePrefix = opts.resourcePrefix ?? defaultResourcePrefix;
  }

  private openStorageWatches = 0;

  /** Storage watches the caches hold open (one per resource being served). */
  storageWatches(): number {
    return this.openStorageWatches;
  }

  /** Client watches served from the caches. */
  cacheWatchers(): number {
    let count = 0;
    for (const cache of this.caches.values()) count += cache.watcherCount;
    return count;
  }

  async currentRevision(): Promise<number> {
    return this.saw(await this.storage.currentRevision());
  }

  compactedRevision(): Promise<number> {
    return this.storage.compactedRevision();
  }

  async alarms(): Promise<StorageAlarm[]> {
    return (await this.storage.alarms?.()) ?? [];
  }

  async defragment(): Promise<void> {
    await this.storage.defragment?.();
  }

  async get(key: string): Promise<GetResult> {
    const result = await this.storage.get(key);
    this.saw(result.revision);
    return result;
  }

  /**
   * The key's value in its resource's cache, when that cache is running and holds the key (it may lag the storage);
   * `start` starts the resource's cache if none runs (it answers once it has listed).
   */
  getCached(key: string, opts: { start?: boolean } = {}): KeyValue | undefined {
    if (opts.start) return this.cacheFor(key)?.get(key);
    const resource = this.closed ? undefined : this.resourcePrefix(key);
    return resource === undefined ? undefined : this.caches.get(resource)?.get(key);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    if (opts.revision) {
      // a continue token's page comes from the cache while it holds every event since the token's revision
      const page = opts.startAfter !== undefined ? this.cacheFor(prefix)?.listAt(prefix, opts.revision, opts) : undefined;
      return page ?? this.storage.list(prefix, opts);
    }
    const cache = this.cacheFor(prefix);
    if (!cache) return this.storage.list(prefix, opts);
    const required = await this.currentRevision();
    if (!(await this.fresh(cache, required))) return this.storage.list(prefix, opts);
    return cache.list(prefix, opts);
  }

  count(prefix: string): Promise<number> {
    return this.storage.count(prefix);
  }

  async create(key: string, value: Uint8Array): Promise<WriteResult> {
    const result = await this.storage.create(key, value);
    this.saw(result.revision);
    return result;
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<WriteResult> {
    const result = await this.storage.update(key, value, expectedModRevision);
    this.saw(result.revision);
    return result;
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const result = await this.storage.delete(key, expectedModRevision);
    this.saw(result.revision);
    return result;
  }

  watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchEvent> {
    const cache = this.cacheFor(prefix);
    if (!cache) return this.storage.watch(prefix, opts);
    // "From now" is pinned at call time, like the backends do.
    const startRevision = opts.startRevision > 0 ? opts.startRevision : this.seenRevision + 1;
    const storage = this.storage;
    return {
      async *[Symbol.asyncIterator]() {
        if (opts.signal.aborted) return;
        while (!(await cache.whenReady(60_000, opts.signal))) if (opts.signal.aborted) return;
        const progress = opts.onProgress && { onProgress: opts.onProgress, intervalMs: opts.progressIntervalMs };
        const watcher = cache.watch(prefix, startRevision, progress);
        if (!watcher) {
          // The revision predates the cache: only the storage has those events.
          yield* storage.watch(prefix, { ...opts, startRevision });
          return;
        }
        const stop = () => watcher.finish();
        opts.signal.addEventListener('abort', stop, { once: true });
        try {
          yield* watcher;
        } finally {
          opts.signal.removeEventListener('abort', stop);
          watcher.finish();
        }
      },
    };
  }

  watchProgressReliable(): Promise<boolean> {
    return this.storage.watchProgressReliable?.() ?? Promise.resolve(true);
  }

  requestWatchProgress(): boolean {
    return this.storage.requestWatchProgress?.() ?? false;
  }

  compact(revision: number): Promise<void> {
    return this.storage.compact(revision);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.caches.values()].map((cache) => cache.stop()));
    await this.storage.close();
  }

  /** Whether the cache has caught up with `required` (asking the storage for progress if it can). */
  private async fresh(cache: WatchCache, required: number): Promise<boolean> {
    const timeoutMs = this.opts.freshnessTimeoutMs ?? 250;
    if (!(await cache.whenReady(timeoutMs))) return false;
    if (cache.revision >= required) return true;
    // A progress report delivered at once has already moved the cache, which the wait checks first.
    if (this.storage.requestWatchProgress?.()) return cache.waitForRevision(required, timeoutMs);
    // Without progress reports only events of this resource move the cache: give in-flight ones one turn.
    await new Promise((resolve) => setImmediate(resolve));
    return cache.revision >= required;
  }

  private cacheFor(prefix: string): WatchCache | undefined {
    if (this.closed) return undefined;
    const resource = this.resourcePrefix(prefix);
    if (!resource || !prefix.startsWith(resource)) return undefined;
    let cache = this.caches.get(resource);
    if (!cache) {
      cache = new WatchCache({
        prefix: resource,
        storage: this.storage,
        windowSize: this.opts.windowSize ?? 10_000,
        watcherBufferSize: this.opts.watcherBufferSize ?? 1000,
        watcherBufferBytes: this.opts.watcherBufferBytes ?? 16 * 1024 * 1024,
        progressIntervalMs: this.opts.progressIntervalMs ?? 5_000,
        onStorageWatch: (resourcePrefix, delta) => {
          this.openStorageWatches += delta;
          this.opts.onStorageWatch?.(resourcePrefix, delta);
        },
      });
      this.caches.set(resource, cache);
      cache.start();
    }
    return cache;
  }

  private saw(revision: number): number {
    if (revision > this.seenRevision) this.seenRevision = revision;
    return revision;
  }
}
