import type { ServerResponse } from 'node:http';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import { ApiError, badRequest, methodNotAllowed } from '../../machinery/api-error.js';
import { formatMicros, toTraceRecord, type ObjectTrace, type ObjectWrite } from '../../trace/journey.js';
import { formatTraceparent } from '../../trace/spans.js';
import { spanStore } from '../../trace/tracing.js';
import type { ApiRegistry } from '../api-registry.js';
import { writeBody } from '../http/respond.js';
import { parseRequestInfo, type RequestInfo } from '../request-info.js';
import type { WriteCauses } from './write-causes.js';

/** The path prefix of the trace query API. */
export const TRACE_API_PREFIX = '/apis/trace.skiff.dev/v1/';

/** Traces returned at most by default (the newest ones). */
const DEFAULT_LIMIT = 20;

export interface TraceQueryDeps {
  registry: ApiRegistry;
  causes: WriteCauses;
  /** Throws 403 unless the user may `get` what the RequestInfo names. */
  authorize(info: RequestInfo): Promise<void>;
}

/**
 * `GET /apis/trace.skiff.dev/v1/namespaces/{ns}/{resource}/{name}` (or
 * `/apis/trace.skiff.dev/v1/{resource}/{name}` for cluster-scoped objects):
 * the journeys of one object, allowed to whoever may `get` the object.
 * `{resource}` is a plural, singular, kind or short name, optionally
 * qualified by group (`deployments.apps`). `?format=otlp` answers with an
 * OTLP/JSON ExportTraceServiceRequest instead; `?limit=N` keeps the newest N traces.
 */
export async function handleTraceQuery(deps: TraceQueryDeps, method: string, path: string, query: URLSearchParams, res: ServerResponse): Promise<void> {
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed('the server does not allow this method on the requested resource');
  const parts = path.slice(TRACE_API_PREFIX.length).split('/').filter(Boolean).map(decodeURIComponent);
  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length === 4) {
    namespace = parts[1];
    parts.splice(0, 2);
  }
  if (parts.length !== 2) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  const [resourceName, name] = parts;
  const info = resolveResource(deps.registry, resourceName);
  if (!info) throw new ApiError(404, 'NotFound', `the server doesn't have a resource type "${resourceName}"`);
  if (info.namespaced !== Boolean(namespace)) {
    throw badRequest(info.namespaced ? `${info.resource} are namespaced: ask under /namespaces/{namespace}/` : `${info.resource} are cluster-scoped: ask without a namespace`);
  }
  const base = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
  const objectPath = `${base}${namespace ? `/namespaces/${namespace}` : ''}/${info.resource}/${name}`;
  await deps.authorize(parseRequestInfo('GET', objectPath, new URLSearchParams()));

  const store = deps.registry.lookup(info.group, info.version, info.resource)!;
  const writes = deps.causes.writesOf(store.key(namespace, name));
  const limit = Math.max(1, Number(query.get('limit')) || DEFAULT_LIMIT);
  const traceIds = [...new Set(writes.map((w) => w.cause.traceId))].slice(-limit);
  const kept = traceIds.map((id) => [id, spanStore.trace(id)] as const).filter((t): t is readonly [string, readonly ReadableSpan[]] => Boolean(t[1]?.length));

  if (query.get('format') === 'otlp') {
    // the OTLP serializer is large; it loads on the first request for it
    const { JsonTraceSerializer } = await import('@opentelemetry/otlp-transformer');
    const body = JsonTraceSerializer.serializeRequest(kept.flatMap(([, spans]) => spans)) ?? new Uint8Array();
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
    res.end(body);
    return;
  }
  const object: ObjectTrace['object'] = { group: info.group, resource: info.resource, name };
  if (namespace) object.namespace = namespace;
  const trace: ObjectTrace = {
    kind: 'ObjectTrace',
    apiVersion: 'trace.skiff.dev/v1',
    object,
    writes: writes.map(
      (w): ObjectWrite => ({ resourceVersion: String(w.revision), verb: w.verb, time: formatMicros(w.committed), traceId: w.cause.traceId, spanId: w.cause.spanId }),
    ),
    traces: kept.map(([id, spans]) => toTraceRecord(id, spans)).sort((a, b) => a.start - b.start),
  };
  const what = `${info.group ? `${info.resource}.${info.group}` : info.resource} "${name}"${namespace ? ` in namespace "${namespace}"` : ''}`;
  if (writes.length === 0) trace.message = `no trace recorded for ${what}: no write to it is remembered (writes are kept for a bounded time)`;
  else if (trace.traces.length === 0) trace.message = `the traces of ${what} are no longer in the trace store (it keeps a bounded number of spans)`;
  writeBody(res, 200, trace);
}

/** The resource a plural, singular, kind or short name (optionally `.group`) names; the core group wins ties. */
export function resolveResource(registry: ApiRegistry, name: string): ResourceInfo | undefined {
  const lower = name.toLowerCase();
  const dot = lower.indexOf('.');
  const [word, group] = dot >= 0 ? [lower.slice(0, dot), lower.slice(dot + 1)] : [lower, undefined];
  const matches = registry
    .resources()
    .filter((r) => group === undefined || r.group === group)
    .filter((r) => r.resource === word || r.singular === word || r.kind.toLowerCase() === word || r.shortNames.includes(word));
  return matches.find((r) => r.group === '') ?? matches[0];
}

/**
 * The skiff-only field of a list for skiff's informers that asked: per listed
 * resourceVersion, the span that caused the write which made it, where the
 * side store still remembers it.
 */
export function listCauses(causes: WriteCauses, items: readonly KubeObject[]): Record<string, { traceparent: string; committed: string }> {
  const out: Record<string, { traceparent: string; committed: string }> = {};
  for (const item of items) {
    const rv = item.metadata?.resourceVersion;
    const w = rv ? causes.causeOf(Number(rv)) : undefined;
    if (w && rv) out[rv] = { traceparent: formatTraceparent(w.cause), committed: formatMicros(w.committed) };
  }
  return out;
}

/** The skiff-only field a watch event carries for watchers that asked (header `X-Skiff-Watch-Causes: true`). */
export function causeField(causes: WriteCauses, resourceVersion: string | undefined, key: string): string {
  const w = resourceVersion ? causes.causeOf(Number(resourceVersion), key) : undefined;
  return w ? `,"cause":{"traceparent":"${formatTraceparent(w.cause)}","committed":"${formatMicros(w.committed)}"}` : '';
}
