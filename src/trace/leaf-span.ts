import type { Attributes, Span, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ATTR, type Hop } from './attributes.js';
import { FinishedSpan } from './finished-span.js';
import { newSpanId } from './ids.js';
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
 * Records a finished child of an SDK span in one step: for short work that
 * starts nothing itself. Nothing is recorded unless `parent` is.
 */
export function recordLeafSpan(parent: Span, name: string, leaf: LeafSpan): void {
  if (!parent.isRecording()) return;
  const owner = parent as unknown as Partial<ReadableSpan>;
  if (!owner.resource) return;
  const parentContext = parent.spanContext();
  emitFinishedSpan(
    new FinishedSpan({
      name,
      context: leaf.context ?? { traceId: parentContext.traceId, spanId: newSpanId(), traceFlags: parentContext.traceFlags },
      parent: parentContext,
      start: leaf.start,
      end: leaf.end ?? performance.now(),
      attributes: { [ATTR.hop]: leaf.hop, ...leaf.attributes },
      error: leaf.error,
      resource: owner.resource,
      scope: owner.instrumentationScope,
    }),
  );
}
