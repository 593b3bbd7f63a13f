import { randomFillSync } from 'node:crypto';
import { SpanKind, SpanStatusCode, type Attributes, type HrTime, type Link, type Span, type SpanContext, type SpanStatus } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { ATTR, type Hop } from './attributes.js';
import { emitFinishedSpan } from './tracing.js';

export interface LeafSpan {
  hop: Hop;
  /** `performance.now()` when the work started. */
  start: number;
  /** `performance.now()` when it ended (default: now). */
  end?: number;
  attributes?: Attributes;
  /** Set when the work failed: the span's status is an error with this message. */
  error?: unknown;
  /** The span's own context, when it had to be named before it ended (see leafContext). */
  context?: SpanContext;
}

/** A context for a leaf span of `parent` that must be named (as a cause) before it is recorded. */
export function leafContext(parent: Span): SpanContext {
  const p = parent.spanContext();
  return { traceId: p.traceId, spanId: newSpanId(), traceFlags: p.traceFlags };
}

/**
 * Records a finished child span of `parent` in one step: for short stages
 * that start nothing themselves (the API server's authentication,
 * authorization, admission plugins, validation, the storage commit). It is the same span for
 * the trace store and OTLP exporters as one from the SDK's tracer, without
 * a live span object, a sampler call or a context switch per stage — the
 * tracer's per-span cost, times a dozen stages, was most of what tracing
 * cost a create. Nothing is recorded unless `parent` is.
 */
export function recordLeafSpan(parent: Span, name: string, leaf: LeafSpan): void {
  if (!parent.isRecording()) return;
  const owner = parent as unknown as Partial<ReadableSpan>;
  if (!owner.resource || !owner.instrumentationScope) return;
  const parentContext = parent.spanContext();
  const end = leaf.end ?? performance.now();
  const attributes: Attributes = { [ATTR.hop]: leaf.hop, ...leaf.attributes };
  const status: SpanStatus =
    leaf.error === undefined ? { code: SpanStatusCode.UNSET } : { code: SpanStatusCode.ERROR, message: leaf.error instanceof Error ? leaf.error.message : String(leaf.error) };
  const context = leaf.context ?? { traceId: parentContext.traceId, spanId: newSpanId(), traceFlags: parentContext.traceFlags };
  const span = new FinishedSpan(name, context, parentContext, leaf.start, end, status, attributes, owner.resource, owner.instrumentationScope);
  emitFinishedSpan(span);
}

/**
 * A span recorded whole: plain fields, times kept as `performance.now()`
 * readings and turned into HrTime only when read (by an exporter or the
 * trace API), so a span waiting in the store is one small object.
 */
class FinishedSpan implements ReadableSpan {
  readonly kind = SpanKind.INTERNAL;
  readonly links: Link[] = [];
  readonly events: TimedEvent[] = [];
  readonly ended = true;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;

  constructor(
    readonly name: string,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext,
    private readonly startMs: number,
    private readonly endMs: number,
    readonly status: SpanStatus,
    readonly attributes: Attributes,
    readonly resource: Resource,
    readonly instrumentationScope: InstrumentationScope,
  ) {}

  spanContext(): SpanContext {
    return this.context;
  }

  get startTime(): HrTime {
    return hrTime(performance.timeOrigin + this.startMs);
  }

  get endTime(): HrTime {
    return hrTime(performance.timeOrigin + this.endMs);
  }

  get duration(): HrTime {
    return hrTime(Math.max(0, this.endMs - this.startMs));
  }
}

/** Milliseconds as HrTime [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

const POOL_IDS = 512;
const bytes = Buffer.alloc(8 * POOL_IDS);
let pool = '';
let offset = 0;

/** A random, non-zero 8-byte span id in hex, cut from a pool of 512 made at once. */
function newSpanId(): string {
  for (;;) {
    if (offset >= pool.length) {
      randomFillSync(bytes);
      pool = bytes.toString('hex');
      offset = 0;
    }
    const id = pool.slice(offset, offset + 16);
    offset += 16;
    if (id !== '0000000000000000') return id;
  }
}
