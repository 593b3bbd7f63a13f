import type { ApiObject } from '../rest/api-object.js';
import type { Client } from '../rest/client.js';
import type { GroupVersionResource } from '../rest/resource-path.js';
import { listWatcherFor } from './list-watcher.js';
import { SharedIndexInformer, type SharedInformerOptions } from './shared-informer.js';
import { waitForCacheSync } from './wait-for-cache-sync.js';

export interface SharedInformerFactoryOptions {
  /** Watch one namespace only (all namespaces if unset). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resyncPeriod?: number;
  informer?: Pick<SharedInformerOptions<ApiObject>, 'freeze' | 'onHandlerError' | 'transform'> & { reflector?: SharedInformerOptions<ApiObject>['reflector'] };
}

/**
 * Hands out one informer per resource, however many components of the
 * process ask for it, so each resource is listed and watched once.
 */
export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer<ApiObject>>();
  private readonly runs: Promise<void>[] = [];

  constructor(
    private readonly client: Client,
    private readonly options: SharedInformerFactoryOptions = {},
  ) {}

  forResource<T extends ApiObject>(gvr: GroupVersionResource): SharedIndexInformer<T> {
    const key = `${gvr.group}/${gvr.version}/${gvr.resource}`;
    let informer = this.informers.get(key);
    if (!informer) {
      let rc = this.client.resource<ApiObject>(gvr);
      if (this.options.namespace) rc = rc.namespace(this.options.namespace);
      informer = new SharedIndexInformer<ApiObject>({
        ...this.options.informer,
        listerWatcher: listWatcherFor(rc, { labelSelector: this.options.labelSelector, fieldSelector: this.options.fieldSelector }),
        resyncPeriod: this.options.resyncPeriod,
      });
      this.informers.set(key, informer);
    }
    return informer as unknown as SharedIndexInformer<T>;
  }

  /** Starts every informer not yet running; call again after asking for new ones. */
  start(signal: AbortSignal): void {
    for (const informer of this.informers.values()) {
      if (!informer.isRunning()) this.runs.push(informer.run(signal));
    }
  }

  waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    return waitForCacheSync(signal, ...this.informers.values());
  }

  /**
   * Runs `body` while these informers run: starts them, waits for their
   * caches (body is skipped if the signal aborts first), and however body
   * ends, stops them and waits until they have stopped.
   */
  async runWhileSynced(signal: AbortSignal, body: () => Promise<void>): Promise<void> {
    const stop = new AbortController();
    const onAbort = (): void => stop.abort();
    if (signal.aborted) stop.abort();
    else signal.addEventListener('abort', onAbort, { once: true });
    this.start(stop.signal);
    try {
      if (await this.waitForCacheSync(signal)) await body();
    } finally {
      signal.removeEventListener('abort', onAbort);
      stop.abort();
      await this.shutdown();
    }
  }

  /** Resolves when every started informer has stopped (abort the start signal first). */
  async shutdown(): Promise<void> {
    await Promise.all(this.runs);
  }
}
