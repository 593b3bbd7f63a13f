import type { SpanContext } from '@opentelemetry/api';
import { addCause, currentCause } from '../../trace/spans.js';
import type { QueueMetrics } from './queue-metrics.js';

/** Why an item was handed out: the spans that added it since it was last handed out, and how long it waited. */
export interface ItemCauses {
  causes: SpanContext[];
  waitMs: number;
}

export interface QueueOptions {
  metrics?: QueueMetrics;
}

/**
 * A work queue with client-go's contract: an item queued twice is processed
 * once; an item being processed is never handed to a second worker; adding
 * it again while it is processed defers it until `done`. After shutdown,
 * queued items are still handed out, then `get` resolves undefined.
 */
export class Queue<T = string> {
  private queue: T[] = [];
  /** Items that need processing (queued, or re-added while processing). */
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly addedAt = new Map<T, number>();
  private readonly startedAt = new Map<T, number>();
  /** Trace causes gathered while queued, and those of the items being processed. */
  private readonly causes = new Map<T, SpanContext[]>();
  private readonly handedOut = new Map<T, ItemCauses>();
  private waiters: { resolve: (item: T | undefined) => void; signal?: AbortSignal }[] = [];
  /** Signals this queue listens to for aborting waits (see get). */
  private readonly watchedSignals = new WeakSet<AbortSignal>();
  private drainWaiters: (() => void)[] = [];
  private shutdown = false;
  protected readonly metrics?: QueueMetrics;

  constructor(options: QueueOptions = {}) {
    this.metrics = options.metrics;
  }

  add(item: T): void {
    if (this.shutdown) return;
    // a level-triggered consumer acts on every cause at once: remember them all
    const cause = currentCause();
    if (cause) {
      let list = this.causes.get(item);
      if (!list) this.causes.set(item, (list = []));
      addCause(list, cause);
    }
    if (this.dirty.has(item)) return;
    this.dirty.add(item);
    this.addedAt.set(item, performance.now());
    if (this.processing.has(item)) return;
    this.queue.push(item);
    this.metrics?.added(this.queue.length);
    this.handOut();
  }

  /** Waits for an item; undefined means the queue is shut down (or the signal aborted). */
  get(signal?: AbortSignal): Promise<T | undefined> {
    if (this.queue.length > 0) return Promise.resolve(this.take());
    if (this.shutdown || signal?.aborted) return Promise.resolve(undefined);
    // one abort listener per signal for all of this queue's waits: workers wait on the same long-lived signal again
    // and again, and adding and removing a listener per wait costs more than the wait itself
    if (signal && !this.watchedSignals.has(signal)) {
      this.watchedSignals.add(signal);
      signal.addEventListener('abort', () => this.abortWaiters(signal), { once: true });
    }
    return new Promise((resolve) => this.waiters.push({ resolve, signal }));
  }

  private abortWaiters(signal: AbortSignal): void {
    const aborted = this.waiters.filter((w) => w.signal === signal);
    this.waiters = this.waiters.filter((w) => w.signal !== signal);
    for (const w of aborted) w.resolve(undefined);
  }

  /** The causes of an item being processed (see ItemCauses); empty for untraced adds. */
  causesOf(item: T): ItemCauses {
    return this.handedOut.get(item) ?? { causes: [], waitMs: 0 };
  }

  /** Marks an item processed; if it was re-added meanwhile it is queued again now. */
  done(item: T): void {
    this.processing.delete(item);
    this.handedOut.delete(item);
    const started = this.startedAt.get(item);
    this.startedAt.delete(item);
    if (started !== undefined) this.metrics?.finished(performance.now() - started);
    if (this.dirty.has(item)) {
      this.queue.push(item);
      this.metrics?.added(this.queue.length);
      this.handOut();
    }
    if (this.processing.size === 0) for (const w of this.drainWaiters.splice(0)) w();
  }

  len(): number {
    return this.queue.length;
  }

  shuttingDown(): boolean {
    return this.shutdown;
  }

  /** Stops accepting items; idle getters get undefined. */
  shutDown(): void {
    this.shutdown = true;
    for (const w of this.waiters.splice(0)) w.resolve(undefined);
  }

  /** Like shutDown, then resolves once every item handed out has been marked done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private handOut(): void {
    while (this.waiters.length > 0 && this.queue.length > 0) this.waiters.shift()!.resolve(this.take());
  }

  private take(): T {
    const item = this.queue.shift()!;
    this.processing.add(item);
    this.dirty.delete(item);
    const now = performance.now();
    const waitMs = now - (this.addedAt.get(item) ?? now);
    const causes = this.causes.get(item);
    if (causes) {
      this.causes.delete(item);
      this.handedOut.set(item, { causes, waitMs });
    }
    this.metrics?.started(this.queue.length, waitMs);
    this.addedAt.delete(item);
    this.startedAt.set(item, now);
    return item;
  }
}
