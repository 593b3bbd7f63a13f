import { SpanKind, SpanStatusCode, type Attributes, type HrTime, type Link, type SpanContext, type SpanStatus } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';

/** The instrumentation scope of every span skiff records (as its tracers name it). */
export const SKIFF_SCOPE: InstrumentationScope = { name: 'skiff' };

export interface FinishedSpanFields {
  name: string;
  kind?: SpanKind;
  context: SpanContext;
  /** Absent for a trace's root. */
  parent?: SpanContext;
  /** `performance.now()` readings. */
  start: number;
  end: number;
  attributes: Attributes;
  /** Set when the work failed: the span's status is an error with this message. */
  error?: unknown;
  resource: Resource;
  scope?: InstrumentationScope;
}

/** A span's status from the error it ended with (none: unset). */
export function statusOf(error: unknown): SpanStatus {
  return error === undefined ? { code: SpanStatusCode.UNSET } : { code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) };
}

/**
 * A span recorded whole: plain fields, times kept as `performance.now()`
 * readings and turned into HrTime only when read (by an exporter or the
 * trace API). The same span for the trace store and OTLP exporters as one
 * from the SDK's tracer, without a live span object, a sampler call or a
 * context switch.
 */
export class FinishedSpan implements ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly links: Link[] = [];
  readonly events: TimedEvent[] = [];
  readonly ended = true;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  private readonly context: SpanContext;
  private readonly startMs: number;
  private readonly endMs: number;

  constructor(f: FinishedSpanFields) {
    this.name = f.name;
    this.kind = f.kind ?? SpanKind.INTERNAL;
    this.context = f.context;
    this.parentSpanContext = f.parent;
    this.startMs = f.start;
    this.endMs = f.end;
    this.status = statusOf(f.error);
    this.attributes = f.attributes;
    this.resource = f.resource;
    this.instrumentationScope = f.scope ?? SKIFF_SCOPE;
  }

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
