import type { ApiObject } from '../rest/api-object.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { finalState } from '../cache/deleted-final-state-unknown.js';
import { metaNamespaceKey } from '../cache/store.js';
import { waitForCacheSync } from '../cache/wait-for-cache-sync.js';
import { RateLimitingQueue } from '../workqueue/rate-limiting-queue.js';
import { QueueMetrics } from '../workqueue/queue-metrics.js';
import type { RateLimiter } from '../workqueue/rate-limiter.js';
import type { MetricsRegistry } from '../../base/metrics/registry.js';
import type { Logger } from '../../machinery/logger.js';
import { logSyncError } from './sync-error.js';
import { TerminalError, type Reconciler, type ReconcileResult } from './reconciler.js';
import type { EnqueueFunc } from './owned-by.js';
import { ATTR } from '../../trace/attributes.js';
import { failSpan, inCausedSpan } from '../../trace/spans.js';
import type { Clock } from '../../base/clock.js';

export interface ControllerOptions {
  /** Names the work queue in metrics and logs. */
  name: string;
  reconciler: Reconciler;
  /** Concurrent reconciles (distinct keys only). */
  workers?: number;
  rateLimiter?: RateLimiter<string>;
  /** Time for the queue's delayed adds and rate limits (default: the real clock). */
  clock?: Clock;
  metrics?: MetricsRegistry;
  /** Failed syncs are logged here, the same way for every controller (see logSyncError). */
  logger?: Logger;
  /** A reconcile failed (after it was logged); the key is retried (or dropped for TerminalError). */
  onError?: (key: string, err: unknown) => void;
}

export interface WatchSpec<T> {
  /** `self` enqueues the object's own key; a function maps it to other keys. */
  enqueue: 'self' | EnqueueFunc<T>;
  /**
   * The keys an update calls for, when only some changes matter (upstream's
   * update handlers that compare old and new); default: `enqueue` of both.
   */
  onUpdate?: (oldObj: T, newObj: T) => string[];
}

/**
 * Runs a Reconciler: informers feed keys into a rate-limited queue and N
 * workers reconcile them, one worker per key at a time.
 */
export class Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly informers: SharedIndexInformer<ApiObject>[] = [];
  private readonly workers: number;

  constructor(private readonly options: ControllerOptions) {
    this.workers = options.workers ?? 1;
    this.queue = new RateLimitingQueue<string>({
      rateLimiter: options.rateLimiter,
      clock: options.clock,
      metrics: new QueueMetrics(options.name, options.metrics),
    });
  }

  /** Reconciles keys derived from an informer's objects on every add, update and delete. */
  watches<T extends ApiObject>(informer: SharedIndexInformer<T>, spec: WatchSpec<T>): this {
    const keysOf: EnqueueFunc<T> = spec.enqueue === 'self' ? (obj) => [metaNamespaceKey(obj)] : spec.enqueue;
    const enqueue = (obj: T): void => {
      for (const key of keysOf(obj)) this.queue.add(key);
    };
    informer.addEventHandler({
      onAdd: enqueue,
      onUpdate: (oldObj, newObj) => {
        if (spec.onUpdate) {
          for (const key of spec.onUpdate(oldObj, newObj)) this.queue.add(key);
          return;
        }
        // For owner mapping an object may move between owners; both need a look.
        if (spec.enqueue !== 'self') enqueue(oldObj);
        enqueue(newObj);
      },
      onDelete: (obj) => enqueue(finalState(obj)),
    });
    this.informers.push(informer as unknown as SharedIndexInformer<ApiObject>);
    return this;
  }

  /**
   * Waits for the watched informers to sync, then reconciles until the signal
   * aborts; resolves after in-flight reconciles have finished.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (!(await waitForCacheSync(signal, ...this.informers))) {
      this.queue.shutDown();
      return;
    }
    const workers = Array.from({ length: this.workers }, () => this.worker(signal));
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await this.queue.shutDownWithDrain();
    await Promise.all(workers);
  }

  private async worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.queue.get(signal);
      if (key === undefined) return;
      try {
        if (signal.aborted) return;
        const { causes, waitMs } = this.queue.causesOf(key);
        // a reconcile joins the journey of the newest write it acts on and links to the others
        const outcome =
          causes.length === 0
            ? await this.reconcile(key, signal)
            : await inCausedSpan(
                `${this.options.name} reconcile`,
                causes,
                { hop: 'reconcile', initiator: 'queue', attributes: { [ATTR.controller]: this.options.name, 'skiff.key': key, [ATTR.queueWaitMs]: Math.round(waitMs * 1000) / 1000 } },
                async (span) => {
                  const o = await this.reconcile(key, signal);
                  if (o.error !== undefined) failSpan(span, o.error);
                  return o;
                },
              );
        this.handle(key, outcome);
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async reconcile(key: string, signal: AbortSignal): Promise<{ result?: ReconcileResult | void; error?: unknown }> {
    try {
      return { result: await this.options.reconciler.reconcile(key, signal) };
    } catch (error) {
      return { error: error ?? new Error('reconcile failed') };
    }
  }

  /** The one place a reconcile outcome becomes a queue action. */
  private handle(key: string, outcome: { result?: ReconcileResult | void; error?: unknown }): void {
    if (outcome.error !== undefined) {
      if (this.options.logger) logSyncError(this.options.logger, key, outcome.error);
      this.options.onError?.(key, outcome.error);
      if (outcome.error instanceof TerminalError) this.queue.forget(key);
      else this.queue.addRateLimited(key);
      return;
    }
    this.queue.forget(key);
    const after = outcome.result?.requeueAfter;
    if (after !== undefined && after >= 0) this.queue.addAfter(key, after);
  }
}
