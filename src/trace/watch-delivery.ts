import { context, SpanKind, trace, TraceFlags, type Attributes } from '@opentelemetry/api';
import { ATTR } from './attributes.js';
import { currentComponent, detachedContext } from './component-context.js';
import { FinishedSpan } from './finished-span.js';
import { newSpanId } from './ids.js';
import { parseTraceparent } from './spans.js';
import { componentResource, emitFinishedSpan } from './tracing.js';

/** What a watcher knows of one delivered event (or of one object its list returned: type LIST). */
export interface Delivery {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'LIST';
  kind?: string;
  namespace?: string;
  name?: string;
  resourceVersion?: string;
  /** The skiff-only cause of the event (see WatchCause). */
  cause: { traceparent: string; committed: string };
}

/**
 * Runs `fn` (the informer applying an event and calling its handlers) in a
 * watch delivery span: a child of the storage commit that caused the event,
 * so whatever the handlers queue names it as its cause. Events without a
 * recorded cause run bare. An informer's list runs each listed object's
 * handlers the same way, linked to the write that made the listed version.
 *
 * Every informer event of every component passes here, so the span is not
 * the tracer's live span: its context is made current as a non-recording
 * span (what handlers need to name it as a cause or parent), and the span is
 * recorded whole when `fn` returns (as FinishedSpan, with the same name,
 * kind, parent, attributes and times the tracer would give it). Handlers
 * therefore cannot add events or attributes to it.
 */
export function inWatchDelivery(d: Delivery, fn: () => void): void {
  const parent = parseTraceparent(d.cause.traceparent);
  if (!parent || !(parent.traceFlags & TraceFlags.SAMPLED)) return fn();
  const base = detachedContext();
  const start = performance.now();
  const committed = Date.parse(d.cause.committed);
  const attributes: Attributes = { [ATTR.hop]: 'watch', [ATTR.watchEvent]: d.type };
  if (d.kind) attributes['k8s.kind'] = d.kind;
  if (d.namespace) attributes[ATTR.namespace] = d.namespace;
  if (d.name) attributes[ATTR.name] = d.name;
  if (d.resourceVersion) attributes[ATTR.resourceVersion] = d.resourceVersion;
  if (Number.isFinite(committed)) attributes[ATTR.watchDelayMs] = Math.max(0, Date.now() - committed);
  attributes[ATTR.initiator] = 'watch';
  const own = { traceId: parent.traceId, spanId: newSpanId(), traceFlags: parent.traceFlags };
  try {
    context.with(trace.setSpan(base, trace.wrapSpanContext(own)), fn);
  } finally {
    emitFinishedSpan(
      new FinishedSpan({
        name: `${d.type === 'LIST' ? 'list' : `watch ${d.type}`} ${d.kind ?? ''}`.trim(),
        kind: SpanKind.CONSUMER,
        context: own,
        parent,
        start,
        end: performance.now(),
        attributes,
        resource: componentResource(currentComponent(base)),
      }),
    );
  }
}
