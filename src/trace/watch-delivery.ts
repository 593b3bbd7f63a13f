import { context, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { ATTR } from './attributes.js';
import { detachedContext } from './component-context.js';
import { parseTraceparent, startSpan } from './spans.js';

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
 */
export function inWatchDelivery(d: Delivery, fn: () => void): void {
  const parent = parseTraceparent(d.cause.traceparent);
  if (!parent || !(parent.traceFlags & TraceFlags.SAMPLED)) return fn();
  const base = detachedContext();
  const committed = Date.parse(d.cause.committed);
  const attributes: Record<string, string | number> = { [ATTR.watchEvent]: d.type };
  if (d.kind) attributes['k8s.kind'] = d.kind;
  if (d.namespace) attributes[ATTR.namespace] = d.namespace;
  if (d.name) attributes[ATTR.name] = d.name;
  if (d.resourceVersion) attributes[ATTR.resourceVersion] = d.resourceVersion;
  if (Number.isFinite(committed)) attributes[ATTR.watchDelayMs] = Math.max(0, Date.now() - committed);
  const span = startSpan(`${d.type === 'LIST' ? 'list' : `watch ${d.type}`} ${d.kind ?? ''}`.trim(), {
    hop: 'watch',
    initiator: 'watch',
    kind: SpanKind.CONSUMER,
    parent: trace.setSpanContext(base, parent),
    attributes,
  });
  try {
    context.with(trace.setSpan(base, span), fn);
  } finally {
    span.end();
  }
}
