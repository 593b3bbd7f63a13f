import type { ApiObject, ObjectList } from '../rest/api-object.js';
import { Backoff } from '../flowcontrol/backoff.js';
import { realClock, type Clock } from '../../base/clock.js';
import { apiErrorFromStatus } from '../rest/api-error-from-status.js';
import { isGone } from '../rest/error-predicates.js';
import type { ListerWatcher } from './list-watcher.js';
import type { Store } from './store.js';
import type { WatchCause } from '../rest/watch-event.js';
import { inWatchDelivery } from '../../trace/watch-delivery.js';

export interface ReflectorOptions<T extends ApiObject> {
  listerWatcher: ListerWatcher<T>;
  /** Receives replace/add/update/delete; an informer's pipeline or a plain Store. */
  store: Pick<Store<T>, 'add' | 'update' | 'delete' | 'replace'>;
  /** Page size of the initial list (client-go: 500). */
  pageSize?: number;
  /** Retry backoff after failures (client-go: 800 ms → 30 s, jittered). */
  backoff?: { initial: number; max: number };
  /** Server-side watch timeout range in seconds; randomized so watches do not all restart together. */
  minWatchTimeoutSeconds?: number;
  /** Called with errors the reflector recovers from (for logging). */
  onError?: (err: unknown) => void;
  /** Time and back-off waits (default the real clock). */
  clock?: Clock;
}

/** Why a watch ended: resume from the last resourceVersion, or list again. */
type WatchOutcome = 'resume' | 'relist';

/**
 * Keeps a store in sync with the server: a paged list, then a watch from the
 * list's resourceVersion. A 410 (history compacted) relists; other failures
 * resume the watch from the last seen resourceVersion after a jittered
 * backoff. Bookmarks advance the resourceVersion without touching the store.
 */
export class Reflector<T extends ApiObject> {
  private lastRv = '';
  private readonly pageSize: number;
  private readonly backoff: Backoff;
  private readonly minWatchTimeout: number;
  private readonly clock: Clock;

  constructor(private readonly options: ReflectorOptions<T>) {
    this.pageSize = options.pageSize ?? 500;
    this.backoff = new Backoff({ initial: options.backoff?.initial ?? 800, max: options.backoff?.max ?? 30_000 });
    this.minWatchTimeout = options.minWatchTimeoutSeconds ?? 300;
    this.clock = options.clock ?? realClock;
  }

  /** The resourceVersion of the last list, event or bookmark applied. */
  lastSyncResourceVersion(): string {
    return this.lastRv;
  }

  /** Runs until the signal aborts. Never rejects for API or network failures; it retries them. */
  async run(signal: AbortSignal): Promise<void> {
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.list(signal);
          needList = false;
          this.backoff.reset();
        }
        const started = this.clock.now();
        const { outcome, events } = await this.watch(signal);
        if (outcome === 'relist') {
          // Backed off like any failure so a server that keeps answering 410 is not hammered.
          needList = true;
          await this.clock.sleep(this.backoff.next(), signal);
          continue;
        }
        // A watch that ends at once with nothing in it would spin; only a healthy one resets the backoff.
        if (events > 0 || this.clock.now() - started > 1000) this.backoff.reset();
        else await this.clock.sleep(this.backoff.next(), signal);
      } catch (err) {
        if (signal.aborted) return;
        this.options.onError?.(err);
        if (isGone(err)) needList = true;
        await this.clock.sleep(this.backoff.next(), signal);
      }
    }
  }

  private async list(signal: AbortSignal): Promise<void> {
    let items: T[] = [];
    let rv = '';
    let cont: string | undefined;
    let paged = true;
    let causes: Record<string, WatchCause> | undefined;
    let kind: string | undefined;
    do {
      let page: ObjectList<T>;
      try {
        page = await this.options.listerWatcher.list({ limit: paged ? this.pageSize : undefined, continue: cont, signal });
      } catch (err) {
        // The continue token expired between pages: start over with one unpaged list.
        if (cont && isGone(err)) {
          [items, cont, paged] = [[], undefined, false];
          continue;
        }
        throw err;
      }
      items = items.concat(page.items ?? []);
      if (page.causes) causes = { ...causes, ...page.causes };
      kind ??= page.kind?.replace(/List$/, '');
      if (!cont) rv = page.metadata?.resourceVersion ?? '';
      cont = page.metadata?.continue || undefined;
    } while (cont && !signal.aborted);
    if (signal.aborted) return;
    this.options.store.replace(items, rv, causes ? { kind, causes } : undefined);
    this.lastRv = rv;
  }

  private async watch(signal: AbortSignal): Promise<{ outcome: WatchOutcome; events: number }> {
    const timeoutSeconds = Math.floor(this.minWatchTimeout * (1 + Math.random()));
    const stream = this.options.listerWatcher.watch({
      resourceVersion: this.lastRv,
      allowWatchBookmarks: true,
      timeoutSeconds,
      signal,
    });
    let events = 0;
    const store = this.options.store;
    for await (const event of stream) {
      events++;
      if (event.type === 'ERROR') {
        const err = apiErrorFromStatus(event.object.code ?? 500, event.object);
        if (isGone(err)) return { outcome: 'relist', events };
        throw err;
      }
      const rv = event.object.metadata?.resourceVersion;
      const object = event.object;
      const apply = (): void => {
        switch (event.type) {
          case 'ADDED':
            store.add(object);
            break;
          case 'MODIFIED':
            store.update(object);
            break;
          case 'DELETED':
            store.delete(object);
            break;
        }
      };
      if (event.cause) {
        const meta = object.metadata;
        inWatchDelivery({ type: event.type, kind: object.kind, namespace: meta?.namespace, name: meta?.name, resourceVersion: rv, cause: event.cause }, apply);
      } else apply();
      if (rv) this.lastRv = rv;
    }
    return { outcome: 'resume', events };
  }
}
