import { context, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Link, type Span, type SpanContext } from '@opentelemetry/api';
import { ATTR, type Hop, type Initiator } from './attributes.js';
import { currentComponent, detachedContext } from './component-context.js';
import { parseTraceParentHeader, tracerFor } from './tracing.js';

export interface SpanOptions {
  hop: Hop;
  initiator?: Initiator;
  attributes?: Attributes;
  kind?: SpanKind;
  links?: Link[];
  /** The parent context (default: the active one). */
  parent?: Context;
  /** When the span started, if before now (e.g. a queue wait), in ms since the epoch. */
  startTime?: number;
}

/** Starts a span of the current component (not made active). */
export function startSpan(name: string, opts: SpanOptions): Span {
  const attributes: Attributes = { [ATTR.hop]: opts.hop, ...opts.attributes };
  if (opts.initiator) attributes[ATTR.initiator] = opts.initiator;
  const parent = opts.parent ?? context.active();
  return tracerFor(currentComponent(parent)).startSpan(name, { kind: opts.kind ?? SpanKind.INTERNAL, attributes, links: opts.links, startTime: opts.startTime }, parent);
}

/** Runs `fn` in a new active span; the span ends when `fn` settles and records a thrown error. */
export async function inSpan<T>(name: string, opts: SpanOptions, fn: (span: Span) => Promise<T> | T): Promise<T> {
  const span = startSpan(name, opts);
  const ctx = trace.setSpan(opts.parent ?? context.active(), span);
  try {
    return await context.with(ctx, fn, undefined, span);
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** Marks a span failed with the error's message. */
export function failSpan(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** The active span's context when it is recorded (sampled): something later work may name as its cause. */
export function currentCause(ctx: Context = context.active()): SpanContext | undefined {
  const sc = trace.getSpanContext(ctx);
  return sc && sc.traceFlags & TraceFlags.SAMPLED ? sc : undefined;
}

/** `traceparent` of a span context (W3C trace context, version 00). */
export function formatTraceparent(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** A remote span context from a `traceparent`, or undefined when it is malformed or tracing is off (then a new trace starts). */
export function parseTraceparent(value: string | undefined): SpanContext | undefined {
  if (!value) return undefined;
  const sc = parseTraceParentHeader(value);
  return sc && trace.isSpanContextValid(sc) ? { ...sc, isRemote: true } : undefined;
}

const MAX_CAUSES = 16;

/** Adds a cause to a list once (by span), keeping the newest MAX_CAUSES. */
export function addCause(list: SpanContext[], cause: SpanContext): void {
  if (list.some((c) => c.spanId === cause.spanId && c.traceId === cause.traceId)) return;
  list.push(cause);
  if (list.length > MAX_CAUSES) list.shift();
}

/**
 * Starts the span of work that acts on several causes (a level-triggered
 * reconcile): a child of the newest cause, so it joins that journey, and
 * linked to every cause. Without causes it starts a new trace. The span is
 * made active in the returned context, which carries no other span.
 */
export function startCausedSpan(name: string, causes: readonly SpanContext[], opts: Omit<SpanOptions, 'parent' | 'links'>): { span: Span; ctx: Context } {
  const base = detachedContext();
  const newest = causes.at(-1);
  const parent = newest ? trace.setSpanContext(base, newest) : base;
  const links = causes.map((c) => ({ context: c }));
  const span = startSpan(name, { ...opts, parent, links, attributes: { [ATTR.causes]: causes.length, ...opts.attributes } });
  return { span, ctx: trace.setSpan(base, span) };
}

/** Runs `fn` as work caused by `causes` (see startCausedSpan). */
export async function inCausedSpan<T>(name: string, causes: readonly SpanContext[], opts: Omit<SpanOptions, 'parent' | 'links'>, fn: (span: Span) => Promise<T> | T): Promise<T> {
  const { span, ctx } = startCausedSpan(name, causes, opts);
  try {
    return await context.with(ctx, fn, undefined, span);
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** The active span when it is recorded, for adding events (undefined otherwise: add nothing). */
export function recordingSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span : undefined;
}

/** Runs `fn` in a child span of the active recorded span; without one, runs it bare (no new trace). */
export function inChildSpan<T>(name: string, opts: SpanOptions, fn: (span?: Span) => Promise<T> | T): Promise<T> {
  if (!currentCause(opts.parent)) return Promise.resolve().then(() => fn());
  return inSpan(name, opts, fn);
}

/** Runs `fn` as the root of a new trace (work a component starts on its own: a timer, a registration). */
export function inRootSpan<T>(name: string, opts: Omit<SpanOptions, 'parent'>, fn: (span: Span) => Promise<T> | T): Promise<T> {
  return inSpan(name, { ...opts, parent: detachedContext() }, fn);
}
