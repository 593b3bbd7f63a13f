import type { IncomingMessage, ServerResponse } from 'node:http';
import { propagation, SpanKind, trace, type Context, type Span } from '@opentelemetry/api';
import { ATTR, type Hop } from '../../trace/attributes.js';
import { componentContext } from '../../trace/component-context.js';
import { recordLeafSpan } from '../../trace/leaf-span.js';
import { currentCause, failSpan, recordingSpan, startSpan } from '../../trace/spans.js';
import { tracingEnabled } from '../../trace/tracing.js';
import type { RequestInfo } from '../request-info.js';
import type { UserInfo } from '../authentication/user-info.js';

/** The component name the API server's spans carry. */
export const APISERVER_COMPONENT = 'kube-apiserver';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const headerGetter = {
  keys: (carrier: IncomingMessage['headers']) => Object.keys(carrier),
  get: (carrier: IncomingMessage['headers'], key: string) => carrier[key],
};

/**
 * The span of one API request: a child of the caller's `traceparent` (a
 * malformed one is ignored and a new trace starts), or the root of a new
 * trace for a write without one (kubectl). Reads without a recorded caller
 * and watches (long-running) get none.
 */
export function startRequestSpan(req: IncomingMessage): { span: Span; ctx: Context } | undefined {
  if (!tracingEnabled()) return undefined;
  const base = componentContext(APISERVER_COMPONENT);
  const parent = req.headers.traceparent ? propagation.extract(base, req.headers, headerGetter) : base;
  const method = req.method ?? 'GET';
  if (!WRITE_METHODS.has(method) && !currentCause(parent)) return undefined;
  if (method === 'GET' && /[?&]watch=(1|true)/.test(req.url ?? '')) return undefined;
  const span = startSpan(`${method} ${(req.url ?? '/').split('?')[0]}`, { hop: 'request', initiator: 'client', kind: SpanKind.SERVER, parent });
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Names the request span after what the URL says (e.g. `create deployments.apps`). */
export function describeRequest(span: Span, info: RequestInfo): void {
  if (!info.isResourceRequest) return;
  const resource = info.group ? `${info.resource}.${info.group}` : info.resource;
  span.updateName(`${info.verb} ${resource}${info.subresource ? `/${info.subresource}` : ''}`);
  span.setAttributes({ [ATTR.verb]: info.verb, [ATTR.resource]: resource });
  if (info.subresource) span.setAttribute(ATTR.subresource, info.subresource);
  if (info.namespace) span.setAttribute(ATTR.namespace, info.namespace);
  if (info.name) span.setAttribute(ATTR.name, info.name);
}

export function describeUser(span: Span, user: UserInfo): void {
  span.setAttribute(ATTR.user, user.name);
}

/** Ends the request span with the response's status code. */
export function endRequestSpan(span: Span, res: ServerResponse, err?: unknown): void {
  span.setAttribute(ATTR.httpStatus, res.statusCode);
  if (err !== undefined || res.statusCode >= 500) failSpan(span, err ?? `HTTP ${res.statusCode}`);
  span.end();
}

/**
 * Runs one stage of a recorded request and records it as a child of the
 * request's span (a leaf: the stage's span is never the active one, so
 * whatever the stage starts itself is recorded under the request);
 * untraced requests run it bare.
 */
export async function stage<T>(name: string, hop: Hop, fn: () => Promise<T>, attributes?: Record<string, string>): Promise<T> {
  const parent = recordingSpan();
  if (!parent) return fn();
  const start = performance.now();
  let error: unknown;
  try {
    return await fn();
  } catch (err) {
    error = err ?? 'failed';
    throw err;
  } finally {
    recordLeafSpan(parent, name, { hop, start, attributes, error });
  }
}

/** A synchronous stage (validation) of a recorded request, recorded as stage() does. */
export function stageSync<T>(name: string, hop: Hop, fn: () => T): T {
  const parent = recordingSpan();
  if (!parent) return fn();
  const start = performance.now();
  let error: unknown;
  try {
    return fn();
  } catch (err) {
    error = err ?? 'failed';
    throw err;
  } finally {
    recordLeafSpan(parent, name, { hop, start, error });
  }
}
