import type { IncomingMessage } from 'node:http';
import { SpanKind, TraceFlags, type Attributes, type SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ATTR, type Hop } from '../../trace/attributes.js';
import { FinishedSpan } from '../../trace/finished-span.js';
import { newSpanId, newTraceId } from '../../trace/ids.js';
import type { SpanBatch } from '../../trace/span-store.js';
import { parseTraceparent } from '../../trace/spans.js';
import { componentResource, emitSpanBatch, sampleNewTrace, tracingEnabled } from '../../trace/tracing.js';
import type { DeleteResult, WriteResult } from '../../storage/storage.js';
import type { RequestInfo } from '../request-info.js';
import type { WriteCause, WriteCauses } from './write-causes.js';

/** The component name the API server's spans carry. */
export const APISERVER_COMPONENT = 'kube-apiserver';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WATCH_QUERY = /[?&]watch=(1|true)(&|$)/;

/** One stage of a request, as recorded: plain numbers and strings until the trace is read. */
interface Stage {
  name: string;
  hop: Hop;
  start: number;
  end: number;
  attributes?: Attributes;
  error?: unknown;
  /** Set when the stage was named before it ended (the storage commit, a write's cause). */
  context?: SpanContext;
}

/**
 * The trace of one recorded API request: its span (a child of the caller's
 * `traceparent`, or the root of a new trace) and one leaf span per stage
 * (authentication, authorization, each admission plugin, validation, the
 * storage commit). It is handed along the request explicitly — the
 * handlers, the admission chain and the store take it as a parameter — so
 * serving a request needs no async context (whose promise hooks would slow
 * every await of the process). Recording is a push of numbers per stage;
 * the whole request reaches the trace store as one batch and becomes
 * ReadableSpans only when someone reads the trace or an exporter is on.
 */
export class RequestTrace implements SpanBatch {
  readonly traceId: string;
  /** The request span's context: the parent of every stage. */
  readonly context: SpanContext;
  private readonly start = performance.now();
  private end = 0;
  private readonly stages: Stage[] = [];
  private info: RequestInfo | undefined;
  private user: string | undefined;
  private statusCode = 0;
  private error: unknown;
  private expanded: readonly ReadableSpan[] | undefined;

  constructor(
    private readonly method: string,
    private readonly path: string,
    private readonly causes: WriteCauses,
    private readonly parent: SpanContext | undefined,
  ) {
    this.traceId = parent?.traceId ?? newTraceId();
    this.context = { traceId: this.traceId, spanId: newSpanId(), traceFlags: TraceFlags.SAMPLED };
  }

  get size(): number {
    return this.stages.length + 1;
  }

  /** What the URL says (names the span, e.g. `create deployments.apps`). */
  describe(info: RequestInfo): void {
    this.info = info;
  }

  /** Who asked (after authentication). */
  setUser(name: string): void {
    this.user = name;
  }

  /** Runs one stage of the request and records it. */
  async stage<T>(name: string, hop: Hop, fn: () => Promise<T>, attributes?: Attributes): Promise<T> {
    const start = performance.now();
    let error: unknown;
    try {
      return await fn();
    } catch (err) {
      error = err ?? 'failed';
      throw err;
    } finally {
      this.stages.push({ name, hop, start, end: performance.now(), attributes, error });
    }
  }

  /**
   * Records a stage that ran from `start` (a performance.now() taken before
   * it) until now, failed when `error` is given: for hot paths that time a
   * stage inline rather than hand stage() a closure. A thrown `undefined`
   * is still a failure: pass `err ?? 'failed'`.
   */
  record(name: string, hop: Hop, start: number, attributes?: Attributes, error?: unknown): void {
    this.stages.push({ name, hop, start, end: performance.now(), attributes, error });
  }

  /** A synchronous stage (validation), recorded as stage() does. */
  stageSync<T>(name: string, hop: Hop, fn: () => T): T {
    const start = performance.now();
    let error: unknown;
    try {
      return fn();
    } catch (err) {
      error = err ?? 'failed';
      throw err;
    } finally {
      this.stages.push({ name, hop, start, end: performance.now(), error });
    }
  }

  /**
   * The storage commit of a write, recorded as a stage carrying the
   * resulting resourceVersion and remembered in the side store as the
   * write's cause (what skiff's watchers are told). The stage is named
   * before the commit: the watch event can be delivered before the write
   * returns.
   */
  async commit<R extends WriteResult | DeleteResult>(verb: WriteCause['verb'], key: string, write: () => Promise<R>): Promise<R> {
    const cause: SpanContext = { traceId: this.traceId, spanId: newSpanId(), traceFlags: TraceFlags.SAMPLED };
    const start = performance.now();
    const attributes: Attributes = { 'db.operation.name': verb, 'db.key': key };
    let error: unknown;
    this.causes.begin(key, cause);
    try {
      const res = await write();
      if (res.succeeded) {
        attributes[ATTR.resourceVersion] = String(res.revision);
        this.causes.record(res.revision, key, verb, cause);
      } else {
        attributes['skiff.storage.conflict'] = true;
      }
      return res;
    } catch (err) {
      error = err ?? 'failed';
      throw err;
    } finally {
      this.causes.end(key, cause);
      this.stages.push({ name: `storage ${verb}`, hop: 'storage', start, end: performance.now(), attributes, error, context: cause });
    }
  }

  /** Ends the request with its response status (an error status for 5xx) and hands it to the trace store. */
  finish(statusCode: number, err?: unknown): void {
    this.end = performance.now();
    this.statusCode = statusCode;
    if (err !== undefined || statusCode >= 500) this.error = err ?? `HTTP ${statusCode}`;
    emitSpanBatch(this);
  }

  /** The request span and its stages as ReadableSpans (built once, on the first read). */
  spans(): readonly ReadableSpan[] {
    if (this.expanded) return this.expanded;
    const resource = componentResource(APISERVER_COMPONENT);
    const request = new FinishedSpan({
      name: this.name(),
      kind: SpanKind.SERVER,
      context: this.context,
      parent: this.parent,
      start: this.start,
      end: this.end || performance.now(),
      attributes: this.attributes(),
      error: this.error,
      resource,
    });
    const stages = this.stages.map(
      (s) =>
        new FinishedSpan({
          name: s.name,
          context: s.context ?? { traceId: this.traceId, spanId: newSpanId(), traceFlags: TraceFlags.SAMPLED },
          parent: this.context,
          start: s.start,
          end: s.end,
          attributes: { [ATTR.hop]: s.hop, ...s.attributes },
          error: s.error,
          resource,
        }),
    );
    // stages end before the request does
    this.expanded = [...stages, request];
    return this.expanded;
  }

  private name(): string {
    const info = this.info;
    if (!info?.isResourceRequest) return `${this.method} ${this.path}`;
    return `${info.verb} ${resourceOf(info)}${info.subresource ? `/${info.subresource}` : ''}`;
  }

  private attributes(): Attributes {
    const a: Attributes = { [ATTR.hop]: 'request', [ATTR.initiator]: 'client' };
    const info = this.info;
    if (info?.isResourceRequest) {
      a[ATTR.verb] = info.verb;
      a[ATTR.resource] = resourceOf(info);
      if (info.subresource) a[ATTR.subresource] = info.subresource;
      if (info.namespace) a[ATTR.namespace] = info.namespace;
      if (info.name) a[ATTR.name] = info.name;
    }
    if (this.user !== undefined) a[ATTR.user] = this.user;
    if (this.statusCode) a[ATTR.httpStatus] = this.statusCode;
    return a;
  }
}

function resourceOf(info: RequestInfo): string {
  return info.group ? `${info.resource}.${info.group}` : info.resource;
}

/**
 * The trace of a request when it is recorded: a write (kubectl's requests
 * start a new trace, sampled at the configured ratio), or any request of a
 * caller whose sampled `traceparent` it joins. A malformed `traceparent` is
 * ignored (a new trace starts); reads without a recorded caller and watches
 * (long-running) get none.
 */
export function startRequestTrace(req: IncomingMessage, causes: WriteCauses): RequestTrace | undefined {
  if (!tracingEnabled()) return undefined;
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const header = req.headers.traceparent;
  const parent = typeof header === 'string' ? parseTraceparent(header) : undefined;
  if (parent && !(parent.traceFlags & TraceFlags.SAMPLED)) return undefined;
  if (!parent && !WRITE_METHODS.has(method)) return undefined;
  if (method === 'GET' && WATCH_QUERY.test(url)) return undefined;
  const q = url.indexOf('?');
  const trace = new RequestTrace(method, q < 0 ? url : url.slice(0, q), causes, parent);
  return parent || sampleNewTrace(trace.traceId) ? trace : undefined;
}

/** Runs a write through the request's trace when there is one (see RequestTrace.commit). */
export function tracedCommit<R extends WriteResult | DeleteResult>(trace: RequestTrace | undefined, verb: WriteCause['verb'], key: string, write: () => Promise<R>): Promise<R> {
  return trace ? trace.commit(verb, key, write) : write();
}

/** Runs a synchronous stage through the request's trace when there is one. */
export function tracedStage<T>(trace: RequestTrace | undefined, name: string, hop: Hop, fn: () => T): T {
  return trace ? trace.stageSync(name, hop, fn) : fn();
}
