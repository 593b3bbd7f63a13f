import { CompactedError, WatchClosedError } from '../errors.js';
import type { KeyValue, ListResult, Storage, WatchEvent } from '../storage.js';
import { CacheWatcher, type WatcherProgress } from './cache-watcher.js';
import { EventWindow } from './event-window.js';
import { listAtRevision, lowerBound, type CurrentObjects } from './list-at-revision.js';
import { realClock } from '../../base/clock.js';

export interface WatchCacheOptions {
  /** The resource's key prefix, e.g. /registry/pods/. */
  prefix: string;
  storage: Storage;
  /** Recent events kept for watches that start in the past. */
  windowSize: number;
  /** Live events (and their bytes) a watcher may have pending before it is closed. */
  watcherBufferSize: number;
  watcherBufferBytes: number;
  /** Told when this cache opens (+1) or closes (-1) its storage watch. */
  onStorageWatch?: (prefix: string, delta: 1 | -1) => void;
  /** How often its storage watch reports progress, so the cache's revision follows writes to other resources. */
  progressIntervalMs?: number;
}

type RevisionWaiter = { revision: number; resolve(reached: boolean): void; timer: NodeJS.Timeout };

const LIST_PAGE = 5000;

/**
 * The cache of one resource (upstream's watchCache plus its reflector): it
 * lists the prefix once, then follows one storage watch, keeping the current
 * objects and a window of recent events. Lists and watches are answered from
 * memory; the storage sees one watch however many clients watch.
 */
export class WatchCache {
  private readonly store = new Map<string, KeyValue>();
  private sortedKeys: string[] | undefined;
  private readonly window: EventWindow;
  private readonly watchers = new Set<CacheWatcher>();
  private waiters: RevisionWaiter[] = [];
  private readyWaiters: (() => void)[] = [];
  /** Every event up to this revision has been applied. */
  revision = 0;
  ready = false;
  /** The revision of the last full list: before any event fell out of the window, older watches go to storage. */
  private listedAt = 0;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(private readonly opts: WatchCacheOptions) {
    this.window = new EventWindow(opts.windowSize);
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  /** Resolves true once the cache is ready, false when `timeoutMs` passes first. */
  whenReady(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.ready) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (value: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.readyWaiters.push(() => finish(true));
    });
  }

  /** Resolves true once every event up to `revision` is applied, false after `timeoutMs`. */
  waitForRevision(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.ready && this.revision >= revision) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: RevisionWaiter = {
        revision,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** The key's current value, once the cache is ready (it may lag the storage). */
  get(key: string): KeyValue | undefined {
    return this.ready ? this.store.get(key) : undefined;
  }

  /** Lists keys under `prefix` (within this resource) at the cache's revision. */
  list(prefix: string, opts: { limit?: number; startAfter?: string }): ListResult {
    return listAtRevision(this.current(), [], prefix, this.revision, opts)!;
  }

  /**
   * Lists keys under `prefix` as they were at `revision` (a continue token's):
   * undefined unless the cache is ready, has reached it, and still holds
   * every event since (then the storage answers).
   */
  listAt(prefix: string, revision: number, opts: { limit?: number; startAfter?: string }): ListResult | undefined {
    if (!this.ready || revision > this.revision || revision < this.window.from) return undefined;
    const events = this.window.since(revision + 1);
    return events && listAtRevision(this.current(), events, prefix, revision, opts);
  }

  private current(): CurrentObjects {
    const keys = (this.sortedKeys ??= [...this.store.keys()].sort());
    return { keys, get: (key) => this.store.get(key) };
  }

  /**
   * A watcher of `prefix` from `startRevision` (> 0), or undefined when the
   * revision predates the cache itself (the caller asks the storage). Throws
   * CompactedError when the events it needs fell out of the window.
   */
  watch(prefix: string, startRevision: number, progress?: Omit<WatcherProgress, 'revision'>): CacheWatcher | undefined {
    if (startRevision <= this.window.from) {
      if (this.window.from === this.listedAt) return undefined;
      throw new CompactedError(startRevision, this.window.from);
    }
    const backlog = startRevision <= this.revision ? (this.window.since(startRevision) ?? []) : [];
    const watcher = new CacheWatcher(
      prefix,
      startRevision,
      backlog,
      { events: this.opts.watcherBufferSize, bytes: this.opts.watcherBufferBytes },
      (w) => this.watchers.delete(w),
      progress && { ...progress, revision: () => this.revision },
    );
    this.watchers.add(watcher);
    return watcher;
  }

  private async run(): Promise<void> {
    const { storage, prefix } = this.opts;
    const signal = this.stopping.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const revision = await this.relist();
        this.opts.onStorageWatch?.(prefix, 1);
        try {
          const events = storage.watch(prefix, {
            startRevision: revision + 1,
            signal,
            onProgress: (r) => this.progress(r),
            progressIntervalMs: this.opts.progressIntervalMs,
          });
          for await (const event of events) {
            this.apply(event);
            failures = 0;
          }
        } finally {
          this.opts.onStorageWatch?.(prefix, -1);
        }
      } catch (err) {
        if (signal.aborted) break;
        // Continuity is lost (compacted, closed as slow, storage down): watchers must relist, and so must we.
        this.ready = false;
        this.closeWatchers(new WatchClosedError(`watch cache of ${JSON.stringify(prefix)} restarts: ${err instanceof Error ? err.message : String(err)}`));
        failures++;
        await realClock.sleep(Math.min(2000, 50 * 2 ** Math.min(failures, 6)) * (0.5 + Math.random() / 2), signal);
      }
    }
    this.ready = false;
    this.closeWatchers(new WatchClosedError('watch cache stopped'));
  }

  /** Loads the whole prefix at one revision and starts a fresh window there. */
  private async relist(): Promise<number> {
    const kvs: KeyValue[] = [];
    let page = await this.opts.storage.list(this.opts.prefix, { limit: LIST_PAGE });
    const revision = page.revision;
    kvs.push(...page.kvs);
    while (page.more) {
      page = await this.opts.storage.list(this.opts.prefix, { limit: LIST_PAGE, revision, startAfter: page.kvs.at(-1)!.key });
      kvs.push(...page.kvs);
    }
    this.store.clear();
    for (const kv of kvs) this.store.set(kv.key, kv);
    this.sortedKeys = undefined;
    this.window.reset(revision);
    this.listedAt = revision;
    this.revision = revision;
    this.ready = true;
    const readyWaiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const wake of readyWaiters) wake();
    this.wakeWaiters();
    return revision;
  }

  private apply(storageEvent: WatchEvent): void {
    const { key, modRevision } = storageEvent.kv;
    if (modRevision <= this.revision) return;
    const event = withHeldPrevious(storageEvent, this.store.get(key));
    if (event.type === 'DELETE') {
      if (this.store.delete(key) && this.sortedKeys) this.sortedKeys.splice(lowerBound(this.sortedKeys, key), 1);
    } else {
      // a new key goes into its place: a list after each create must not sort every key again
      if (!this.store.has(key) && this.sortedKeys) this.sortedKeys.splice(lowerBound(this.sortedKeys, key), 0, key);
      this.store.set(key, event.kv);
    }
    this.window.push(event);
    this.revision = modRevision;
    for (const watcher of this.watchers) watcher.deliver(event);
    this.wakeWaiters();
  }

  private progress(revision: number): void {
    if (revision <= this.revision) return;
    this.revision = revision;
    this.wakeWaiters();
  }

  private wakeWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: RevisionWaiter[] = [];
    for (const waiter of this.waiters) {
      if (this.revision >= waiter.revision) {
        clearTimeout(waiter.timer);
        waiter.resolve(true);
      } else {
        still.push(waiter);
      }
    }
    this.waiters = still;
  }

  private closeWatchers(err: Error): void {
    for (const watcher of [...this.watchers]) watcher.fail(err);
    this.watchers.clear();
  }
}

/**
 * The event with its previous value as the cache held it, when that is the
 * same revision: the very bytes the cache's readers already decoded (see
 * the registry's decodeShared), rather than a second copy of them from the
 * storage. A deletion's value is the previous value too.
 */
function withHeldPrevious(event: WatchEvent, held: KeyValue | undefined): WatchEvent {
  const prev = event.prevKv;
  if (!held || !prev || prev.modRevision !== held.modRevision || prev.value === held.value) return event;
  if (event.type === 'DELETE') return { type: 'DELETE', kv: { ...event.kv, value: held.value }, prevKv: held };
  return { type: event.type, kv: event.kv, prevKv: held };
}
