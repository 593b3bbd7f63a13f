import { SpanKind, SpanStatusCode, type AttributeValue, type HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ATTR } from './attributes.js';

/**
 * The JSON shapes of the trace query API (`trace.skiff.dev/v1`), shared by
 * the API server, `skiff trace` and the dashboard. See the README's
 * "Tracing" section.
 */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  /** Absent for a trace's root. */
  parentSpanId?: string;
  name: string;
  /** The component that recorded the span (its service.name): kube-apiserver, kube-controller-manager, … */
  component: string;
  kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  /** `skiff.hop`: request, authentication, authorization, admission, validation, storage, watch, reconcile, … */
  hop?: string;
  /** `skiff.initiator`: client (an API call), watch (a watch delivery), queue, timer, internal. */
  initiator?: string;
  /** RFC 3339 with microseconds. */
  startTime: string;
  /** Milliseconds since the epoch (fractional). */
  start: number;
  durationMs: number;
  attributes: Record<string, AttributeValue | undefined>;
  /** Other causes (a level-triggered loop acting on several writes). */
  links: { traceId: string; spanId: string }[];
  events: { name: string; time: string; attributes: Record<string, AttributeValue | undefined> }[];
  status: 'Unset' | 'Ok' | 'Error';
  statusMessage?: string;
}

export interface TraceRecord {
  traceId: string;
  /** Earliest span start (ms since the epoch) and the trace's span from first start to last end. */
  start: number;
  durationMs: number;
  /** Spans in start order. */
  spans: SpanRecord[];
  /** Span ids from the root to the span that ended last, each the parent of the next. */
  criticalPath: string[];
}

export interface ObjectWrite {
  resourceVersion: string;
  verb: string;
  time: string;
  traceId: string;
  spanId: string;
}

/** What `GET /apis/trace.skiff.dev/v1/…/{resource}/{name}` returns. */
export interface ObjectTrace {
  kind: 'ObjectTrace';
  apiVersion: 'trace.skiff.dev/v1';
  object: { group: string; resource: string; namespace?: string; name: string };
  /** The object's recorded writes, oldest first (the bounded side store of write causes). */
  writes: ObjectWrite[];
  /** The traces those writes belong to, oldest first, as far as the span store still holds them. */
  traces: TraceRecord[];
  /** Set when there is nothing to show, saying why. */
  message?: string;
}

const KINDS: Record<SpanKind, SpanRecord['kind']> = {
  [SpanKind.INTERNAL]: 'internal',
  [SpanKind.SERVER]: 'server',
  [SpanKind.CLIENT]: 'client',
  [SpanKind.PRODUCER]: 'producer',
  [SpanKind.CONSUMER]: 'consumer',
};

export function hrToMs(t: HrTime): number {
  return t[0] * 1000 + t[1] / 1e6;
}

/** RFC 3339 with microseconds. */
export function formatMicros(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.round((ms - whole) * 1000);
  return new Date(whole).toISOString().replace(/Z$/, `${String(micros).padStart(3, '0')}Z`);
}

export function toSpanRecord(span: ReadableSpan): SpanRecord {
  const sc = span.spanContext();
  const start = hrToMs(span.startTime);
  const record: SpanRecord = {
    traceId: sc.traceId,
    spanId: sc.spanId,
    name: span.name,
    component: String(span.resource.attributes['service.name'] ?? 'unknown'),
    kind: KINDS[span.kind] ?? 'internal',
    startTime: formatMicros(start),
    start,
    durationMs: Math.round(hrToMs(span.duration) * 1000) / 1000,
    attributes: { ...span.attributes },
    links: span.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
    events: span.events.map((e) => ({ name: e.name, time: formatMicros(hrToMs(e.time)), attributes: { ...e.attributes } })),
    status: span.status.code === SpanStatusCode.ERROR ? 'Error' : span.status.code === SpanStatusCode.OK ? 'Ok' : 'Unset',
  };
  const parent = span.parentSpanContext;
  if (parent) record.parentSpanId = parent.spanId;
  const hop = span.attributes[ATTR.hop];
  if (hop !== undefined) record.hop = String(hop);
  const initiator = span.attributes[ATTR.initiator];
  if (initiator !== undefined) record.initiator = String(initiator);
  if (span.status.message) record.statusMessage = span.status.message;
  return record;
}

/** One trace's spans as a TraceRecord (spans sorted by start, critical path computed). */
export function toTraceRecord(traceId: string, spans: readonly ReadableSpan[]): TraceRecord {
  const records = spans.map(toSpanRecord).sort((a, b) => a.start - b.start);
  const start = records.length ? records[0].start : 0;
  const end = records.reduce((m, s) => Math.max(m, s.start + s.durationMs), start);
  return { traceId, start, durationMs: Math.round((end - start) * 1000) / 1000, spans: records, criticalPath: criticalPath(records) };
}

/**
 * The critical path of a causal trace: the chain of parents of the span that
 * ended last, from the root down. In a journey children often outlive their
 * parents (a watch delivery happens after the write that caused it), so the
 * path is the chain of causes the final state waited on.
 */
export function criticalPath(spans: readonly SpanRecord[]): string[] {
  if (spans.length === 0) return [];
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  let last = spans[0];
  for (const s of spans) if (s.start + s.durationMs > last.start + last.durationMs) last = s;
  const path: string[] = [];
  const seen = new Set<string>();
  for (let s: SpanRecord | undefined = last; s && !seen.has(s.spanId); s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined) {
    seen.add(s.spanId);
    path.push(s.spanId);
  }
  return path.reverse();
}
