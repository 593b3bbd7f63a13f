import type { ApiObject } from '../rest/api-object.js';
import { Reflector, type ReflectorOptions } from './reflector.js';
import type { ListerWatcher } from './list-watcher.js';
import type { Indexers } from './indexer.js';
import { MapIndexer } from './map-indexer.js';
import type { ListedCauses } from './store.js';
import { inWatchDelivery } from '../../trace/watch-delivery.js';
import { Lister } from './lister.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { deepFreeze, FREEZE_CACHED_OBJECTS } from './deep-freeze.js';
import type { HandlerRegistration, ResourceEventHandler } from './resource-event-handler.js';
import type { TransformFunc } from './transform.js';

export interface SharedInformerOptions<T extends ApiObject> {
  listerWatcher: ListerWatcher<T>;
  /** Default resync period in ms for handlers (0: never). A resync replays every cached object as an update. */
  resyncPeriod?: number;
  indexers?: Indexers<T>;
  /** Deep-freeze cached objects; defaults to on unless NODE_ENV=production. */
  freeze?: boolean;
  /** Applied to every object (listed, added, updated or deleted) before it is cached or handed to handlers. */
  transform?: TransformFunc<T>;
  reflector?: Pick<ReflectorOptions<T>, 'pageSize' | 'backoff' | 'minWatchTimeoutSeconds' | 'onError'>;
  /** A handler threw; the informer carries on. */
  onHandlerError?: (err: unknown) => void;
}

interface Listener<T> {
  handler: ResourceEventHandler<T>;
  resyncPeriod: number;
  timer?: ReturnType<typeof setInterval>;
}

/**
 * One cache of one resource shared by many handlers. The pipeline is
 * Reflector → this informer (as the reflector's store) → Indexer, then
 * notifications to each handler, in order. That replaces client-go's DeltaFIFO:
 * in a single-threaded runtime an event is applied and delivered in one step,
 * so nothing needs to be queued between the two.
 */
export class SharedIndexInformer<T extends ApiObject> {
  readonly indexer: MapIndexer<T>;
  readonly lister: Lister<T>;
  private readonly listeners = new Set<Listener<T>>();
  private readonly reflector: Reflector<T>;
  private readonly freeze: boolean;
  private readonly transform: TransformFunc<T> | undefined;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private running?: Promise<void>;

  constructor(private readonly options: SharedInformerOptions<T>) {
    this.indexer = new MapIndexer<T>(options.indexers);
    this.lister = new Lister(this.indexer);
    this.freeze = options.freeze ?? FREEZE_CACHED_OBJECTS;
    this.transform = options.transform;
    this.reflector = new Reflector<T>({
      ...options.reflector,
      listerWatcher: options.listerWatcher,
      store: {
        add: (obj) => this.upsert(obj),
        update: (obj) => this.upsert(obj),
        delete: (obj) => this.remove(obj),
        replace: (items, rv, listed) => this.replace(items, rv, listed),
      },
    });
  }

  /**
   * Registers a handler. If the informer already has objects, the handler
   * first gets a synthetic add for each of them.
   */
  addEventHandler(handler: ResourceEventHandler<T>, options: { resyncPeriod?: number } = {}): HandlerRegistration {
    const listener: Listener<T> = { handler, resyncPeriod: options.resyncPeriod ?? this.options.resyncPeriod ?? 0 };
    this.listeners.add(listener);
    for (const obj of this.indexer.list()) this.call(() => handler.onAdd?.(obj, !this.synced));
    if (this.running) this.startResync(listener);
    return {
      remove: () => {
        clearInterval(listener.timer);
        this.listeners.delete(listener);
      },
    };
  }

  addIndexers(indexers: Indexers<T>): void {
    this.indexer.addIndexers(indexers);
  }

  /** True once the first full list has been applied. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once synced, or false if the signal aborts first. */
  whenSynced(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion();
  }

  isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Lists, watches and notifies until the signal aborts; resolves once fully stopped. */
  run(signal: AbortSignal): Promise<void> {
    if (this.running) return this.running;
    for (const l of this.listeners) this.startResync(l);
    this.running = this.reflector.run(signal).finally(() => {
      for (const l of this.listeners) clearInterval(l.timer);
    });
    return this.running;
  }

  private startResync(l: Listener<T>): void {
    if (l.resyncPeriod <= 0 || l.timer) return;
    l.timer = setInterval(() => {
      for (const obj of this.indexer.list()) this.call(() => l.handler.onUpdate?.(obj, obj));
    }, l.resyncPeriod);
  }

  /** What is cached of an object from the server: transformed, then frozen. */
  private prepare(raw: T): T {
    const obj = this.transform ? this.transform(raw) : raw;
    return this.freeze ? deepFreeze(obj) : obj;
  }

  private upsert(raw: T): void {
    const obj = this.prepare(raw);
    const old = this.indexer.getByKey(this.indexer.keyFunc(obj));
    this.indexer.update(obj);
    for (const l of this.listeners) {
      if (old === undefined) this.call(() => l.handler.onAdd?.(obj, false));
      else this.call(() => l.handler.onUpdate?.(old, obj));
    }
  }

  private remove(raw: T): void {
    const key = this.indexer.keyFunc(raw);
    if (this.indexer.getByKey(key) === undefined) return;
    const obj = this.prepare(raw);
    this.indexer.deleteKey(key);
    for (const l of this.listeners) this.call(() => l.handler.onDelete?.(obj));
  }

  /**
   * A (re)list: objects missing from it were deleted while we were not
   * watching, so their handlers get tombstones with the last known state.
   * Everything listed is delivered as add or update, as client-go does.
   */
  private replace(items: T[], rv: string, listed?: ListedCauses): void {
    const initial = !this.synced;
    const fresh = new Map(items.map((raw) => {
      const obj = this.prepare(raw);
      return [this.indexer.keyFunc(obj), obj] as const;
    }));
    const previous = new Map(this.indexer.listKeys().map((k) => [k, this.indexer.getByKey(k)!] as const));
    this.indexer.replace([...fresh.values()], rv);
    for (const [key, old] of previous) {
      if (fresh.has(key)) continue;
      const tombstone = new DeletedFinalStateUnknown(key, old);
      for (const l of this.listeners) this.call(() => l.handler.onDelete?.(tombstone));
    }
    for (const [key, obj] of fresh) {
      const old = previous.get(key);
      const notify = (): void => {
        for (const l of this.listeners) {
          if (old === undefined) this.call(() => l.handler.onAdd?.(obj, initial));
          else this.call(() => l.handler.onUpdate?.(old, obj));
        }
      };
      // a listed object whose write's cause the server remembers: its handlers run linked to that write, as a watched one's do
      const meta = obj.metadata;
      const cause = meta?.resourceVersion ? listed?.causes[meta.resourceVersion] : undefined;
      if (cause) inWatchDelivery({ type: 'LIST', kind: obj.kind ?? listed?.kind, namespace: meta?.namespace, name: meta?.name, resourceVersion: meta?.resourceVersion, cause }, notify);
      else notify();
    }
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      (this.options.onHandlerError ?? defaultHandlerError)(err);
    }
  }
}

function defaultHandlerError(err: unknown): void {
  console.error('informer event handler failed:', err);
}
