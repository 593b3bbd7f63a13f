import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { RecencyQueue } from './recency-queue.js';
import { realClock, type Clock } from '../base/clock.js';

export interface SpanStoreOptions {
  /** Spans kept at most, over all traces (default 20,000). */
  maxSpans?: number;
  /** A trace not touched for this long is dropped (default one hour). */
  maxAgeMs?: number;
  /** Milliseconds since the epoch (tests inject a fake). */
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/**
 * Several spans of one trace recorded as one item (an API request with its
 * stages): kept compact and turned into ReadableSpans only when read.
 */
export interface SpanBatch {
  readonly traceId: string;
  /** How many spans `spans()` returns. */
  readonly size: number;
  spans(): readonly ReadableSpan[];
}

type Item = ReadableSpan | SpanBatch;

function isBatch(item: Item): item is SpanBatch {
  return typeof (item as Partial<SpanBatch>).spans === 'function';
}

function sizeOf(item: Item): number {
  return isBatch(item) ? item.size : 1;
}

interface TraceEntry {
  items: Item[];
  touched: number;
}

export const DEFAULT_MAX_SPANS = 20_000;
export const DEFAULT_MAX_AGE_MS = 60 * 60 * 1000;

/**
 * The built-in trace store: finished spans grouped by trace, bounded by span
 * count and by age. Traces are kept in the order they were last touched, so
 * the least recently active trace is evicted first.
 */
export class SpanStore {
  private readonly traces = new Map<string, TraceEntry>();
  /** Trace ids, least recently touched first. */
  private readonly order = new RecencyQueue<string>();
  private count = 0;
  private maxSpans: number;
  private maxAgeMs: number;
  private readonly clock: Clock;

  constructor(opts: SpanStoreOptions = {}) {
    this.maxSpans = opts.maxSpans ?? DEFAULT_MAX_SPANS;
    this.maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.clock = opts.clock ?? realClock;
  }

  /** Changes the bounds; what no longer fits is evicted at once. */
  configure(opts: Pick<SpanStoreOptions, 'maxSpans' | 'maxAgeMs'>): void {
    if (opts.maxSpans !== undefined) this.maxSpans = opts.maxSpans;
    if (opts.maxAgeMs !== undefined) this.maxAgeMs = opts.maxAgeMs;
    this.evict();
  }

  add(span: ReadableSpan): void {
    this.put(span.spanContext().traceId, span);
  }

  /** Adds several spans of one trace at once (expanded only when read). */
  addBatch(batch: SpanBatch): void {
    this.put(batch.traceId, batch);
  }

  /** The spans of one trace in the order they ended (a batch's where it was added), or undefined when none is kept. */
  trace(traceId: string): readonly ReadableSpan[] | undefined {
    this.evict();
    const entry = this.traces.get(traceId);
    return entry?.items.flatMap((item) => (isBatch(item) ? item.spans() : [item]));
  }

  /** How much is kept now. */
  size(): { traces: number; spans: number } {
    return { traces: this.traces.size, spans: this.count };
  }

  private put(id: string, item: Item): void {
    if (this.maxSpans <= 0) return;
    let entry = this.traces.get(id);
    if (!entry) this.traces.set(id, (entry = { items: [], touched: 0 }));
    entry.items.push(item);
    entry.touched = this.clock.now();
    this.order.touch(id);
    this.count += sizeOf(item);
    this.evict();
  }

  clear(): void {
    this.traces.clear();
    this.order.clear();
    this.count = 0;
  }

  private evict(): void {
    const oldest = this.clock.now() - this.maxAgeMs;
    for (let id = this.order.oldest(); id !== undefined; id = this.order.oldest()) {
      const entry = this.traces.get(id)!;
      const over = this.count > this.maxSpans;
      if (!over && entry.touched >= oldest) break;
      if (over && this.traces.size === 1) {
        // one trace larger than the whole store keeps its newest spans (a batch goes whole)
        while (this.count > this.maxSpans && entry.items.length > 0) this.count -= sizeOf(entry.items.shift()!);
        if (entry.items.length > 0) break;
      }
      this.traces.delete(id);
      this.order.delete(id);
      this.count -= entry.items.reduce((n, item) => n + sizeOf(item), 0);
    }
  }
}

/** Hands every finished, sampled span to a SpanStore: the in-process exporter of the built-in store. */
export class StoreSpanProcessor implements SpanProcessor {
  constructor(private readonly store: SpanStore) {}

  onStart(_span: Span, _parent: Context): void {}

  onEnd(span: ReadableSpan): void {
    this.store.add(span);
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}
