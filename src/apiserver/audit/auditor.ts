import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { realClock, type Clock } from '../../base/clock.js';
import type { UserInfo } from '../authentication/user-info.js';
import type { RequestInfo } from '../request-info.js';
import { isLongRunning } from '../filters/long-running.js';
import { eventUser, microTime, sourceIPs, type ObjectReference } from './event.js';
import type { AuditAttributes, PolicyRuleEvaluator } from './policy-rule-evaluator.js';
import { attachAudit, auditOf, RequestAudit, type AuditSink } from './request-audit.js';

export interface AuditorOptions {
  /** The policy; undefined (no --audit-policy-file): nothing is recorded, as upstream. */
  evaluator?: PolicyRuleEvaluator;
  sink?: AuditSink;
  /** Event timestamps (default the real clock). */
  clock?: Clock;
}

const AUDIT_ID_HEADER = 'Audit-Id';

/**
 * The audit stage of the request pipeline (upstream's WithAuditInit,
 * WithAudit and WithFailedAuthenticationAudit): after authentication the
 * policy picks the request's level; RequestReceived is written then,
 * ResponseStarted when a long-running request sends its headers, and
 * ResponseComplete (or Panic) when the request ends.
 */
export class Auditor {
  private readonly clock: Clock;

  constructor(private readonly opts: AuditorOptions = {}) {
    this.clock = opts.clock ?? realClock;
  }

  get enabled(): boolean {
    return this.opts.evaluator !== undefined && this.opts.sink !== undefined;
  }

  /** Every request gets an audit ID (the client's Audit-ID header, or a new UUID), echoed in the response. */
  init(req: IncomingMessage, res: ServerResponse | undefined): string {
    const given = req.headers['audit-id'];
    const id = (Array.isArray(given) ? given[0] : given)?.trim() || randomUUID();
    ids.set(req, id);
    if (res && !res.headersSent) res.setHeader(AUDIT_ID_HEADER, id);
    return id;
  }

  /** After authentication: decides the level for the requester and writes RequestReceived. */
  begin(req: IncomingMessage, res: ServerResponse | undefined, info: RequestInfo, user: UserInfo): void {
    const audit = this.create(req, info, user);
    if (!audit) return;
    attachAudit(req, audit);
    audit.emit('RequestReceived');
    if (res && isLongRunning(info)) emitOnHeaders(res, audit);
  }

  /** A request whose credentials were refused: one event at ResponseStarted with the 401, as upstream. */
  failedAuthentication(req: IncomingMessage, info: RequestInfo, code: number): void {
    const audit = this.create(req, info, undefined);
    if (!audit) return;
    audit.event.responseStatus = { metadata: {}, message: authMethods(req), code };
    audit.emit('ResponseStarted');
  }

  impersonated(req: IncomingMessage, user: UserInfo): void {
    const audit = auditOf(req);
    if (audit) audit.event.impersonatedUser = eventUser(user);
  }

  /** The authorizer's decision and reason (upstream's authorization.k8s.io annotations). */
  authorized(req: IncomingMessage, allowed: boolean, reason: string): void {
    const audit = auditOf(req);
    if (!audit) return;
    audit.annotate('authorization.k8s.io/decision', allowed ? 'allow' : 'forbid');
    audit.annotate('authorization.k8s.io/reason', reason);
  }

  /** An upgraded connection (exec, attach, port-forward, proxy): ResponseStarted now, ResponseComplete when it closes. */
  upgraded(req: IncomingMessage, socket: { once(event: 'close', f: () => void): unknown; destroyed: boolean }): void {
    const audit = auditOf(req);
    if (!audit) return;
    audit.setStatusCode(101);
    audit.emit('ResponseStarted');
    if (socket.destroyed) audit.emit('ResponseComplete');
    else socket.once('close', () => audit.emit('ResponseComplete'));
  }

  /** The request is over: ResponseComplete with the status, or Panic when the handler failed unexpectedly. */
  complete(req: IncomingMessage, statusCode: number, panic?: unknown): void {
    const audit = auditOf(req);
    if (!audit) return;
    if (panic !== undefined) {
      audit.event.responseStatus = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${panic instanceof Error ? panic.message : String(panic)}`, reason: 'InternalError', code: 500 };
      audit.emit('Panic');
      return;
    }
    audit.setStatusCode(statusCode);
    audit.emit('ResponseComplete');
  }

  private create(req: IncomingMessage, info: RequestInfo, user: UserInfo | undefined): RequestAudit | undefined {
    const { evaluator, sink } = this.opts;
    if (!evaluator || !sink) return undefined;
    const verb = info.isResourceRequest ? info.verb : (req.method ?? 'GET').toLowerCase();
    const attrs = auditAttributes(info, verb, user);
    const config = evaluator(attrs);
    if (config.level === 'None') return undefined;
    const received = new Date(this.clock.now());
    const userAgent = req.headers['user-agent'];
    return new RequestAudit(
      {
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: config.level,
        auditID: ids.get(req) ?? this.init(req, undefined),
        requestURI: req.url ?? '/',
        verb,
        user: eventUser(user),
        sourceIPs: sourceIPs(req),
        ...(userAgent ? { userAgent } : {}),
        ...(info.isResourceRequest ? { objectRef: objectRef(info, attrs) } : {}),
        requestReceivedTimestamp: microTime(received),
      },
      config,
      sink,
      () => microTime(new Date(this.clock.now())),
    );
  }
}

const ids = new WeakMap<IncomingMessage, string>();

function auditAttributes(info: RequestInfo, verb: string, user: UserInfo | undefined): AuditAttributes {
  // upstream's RequestInfo puts a namespace in its own namespace, and a list by metadata.name carries the name
  const byName = /(?:^|,)metadata\.name==?([^,]+)/.exec(info.fieldSelector ?? '')?.[1];
  return {
    ...(user ? { user } : {}),
    verb,
    resourceRequest: info.isResourceRequest,
    apiGroup: info.group,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.group === '' && info.resource === 'namespaces' && info.name ? info.name : info.namespace,
    name: info.name || byName || '',
    path: info.path,
  };
}

function objectRef(info: RequestInfo, attrs: AuditAttributes): ObjectReference {
  return {
    resource: info.resource,
    ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(info.group ? { apiGroup: info.group } : {}),
    apiVersion: info.version,
    ...(info.subresource ? { subresource: info.subresource } : {}),
  };
}

/** ResponseStarted once a long-running request (a watch, exec, logs) sends its headers. */
function emitOnHeaders(res: ServerResponse, audit: RequestAudit): void {
  const writeHead = res.writeHead;
  let started = false;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    if (!started) {
      started = true;
      audit.setStatusCode(typeof args[0] === 'number' ? args[0] : res.statusCode);
      audit.emit('ResponseStarted');
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
}

/** Upstream's message for a refused request: which credentials were tried. */
function authMethods(req: IncomingMessage): string {
  const methods: string[] = [];
  const auth = (req.headers.authorization ?? '').trim();
  const scheme = auth.split(' ')[0]?.toLowerCase();
  if (scheme === 'basic') methods.push('basic');
  if (scheme === 'bearer' && auth.split(' ').length > 1) methods.push('bearer');
  if (new URL(req.url ?? '/', 'https://x').searchParams.get('access_token')?.trim()) methods.push('access_token');
  const socket = req.socket as { getPeerCertificate?: () => { raw?: Buffer } };
  if (socket.getPeerCertificate?.()?.raw) methods.push('x509');
  return methods.length > 0 ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}
