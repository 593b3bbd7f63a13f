import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYamlText } from 'yaml';
import { listEnvelopeGoForm, toGoForm } from '../../api/json/go-form.js';
import { decodeProtobufObject } from '../../api/protobuf/decode-protobuf-object.js';
import { levelAtLeast, type Stage } from './policy.js';
import type { RequestAuditConfig } from './policy-rule-evaluator.js';
import type { AuditEvent, ResponseStatus } from './event.js';

/** A response body that was written as ready-made JSON text (a list served from stored items). */
export class RawJson {
  /** The text itself, parts to join (a list's pre-serialized items) or a function making it: used only if an audit level asks for the body. */
  constructor(private readonly source: string | readonly Uint8Array[] | (() => string)) {}

  get text(): string {
    if (typeof this.source === 'string') return this.source;
    if (typeof this.source === 'function') return this.source();
    return Buffer.concat(this.source).toString('utf8');
  }
}

/** Receives finished audit events (the log backend). */
export interface AuditSink {
  processEvent(event: AuditEvent): void;
}

/**
 * What is known about one audited request so far (upstream's
 * AuditContext): the event being filled in as the request goes through the
 * pipeline, and the bodies the level asks for.
 */
export class RequestAudit {
  requestObject: unknown;
  private requestBody: { buf: Buffer; contentType: string } | undefined;
  responseObject: unknown;
  private responseSeen = false;

  constructor(
    readonly event: Omit<AuditEvent, 'stage' | 'stageTimestamp'>,
    readonly config: RequestAuditConfig,
    private readonly sink: AuditSink,
    private readonly now: () => string,
  ) {}

  get level() {
    return this.config.level;
  }

  annotate(key: string, value: string): void {
    (this.event.annotations ??= {})[key] = value;
  }

  /** The decoded request object: completes the objectRef and, from level Request on, is logged as it arrived. */
  recordRequestObject(obj: unknown): void {
    const meta = isRecord(obj) && isRecord(obj.metadata) ? obj.metadata : undefined;
    const ref = this.event.objectRef;
    if (ref && meta) {
      for (const key of ['namespace', 'name', 'uid', 'resourceVersion'] as const) {
        if (!ref[key] && typeof meta[key] === 'string' && meta[key]) ref[key] = meta[key];
      }
    }
    if (!levelAtLeast(this.level, 'Request')) return;
    // a snapshot: admission and defaulting change the object afterwards
    this.requestObject = structuredClone(obj);
    this.requestBody = undefined;
  }

  /** The raw body (patches, delete options), decoded only if the event needs it. */
  recordRequestBody(buf: Buffer, contentType: string | undefined): void {
    if (buf.length === 0 || this.requestObject !== undefined || !levelAtLeast(this.level, 'Request')) return;
    this.requestBody = { buf, contentType: contentType ?? 'application/json' };
  }

  /** What the handler answers: a Status fills responseStatus; the object itself is logged at RequestResponse. */
  recordResponseObject(body: unknown): void {
    if (this.responseSeen) return;
    this.responseSeen = true;
    if (isRecord(body) && body.kind === 'Status') {
      const { status, message, reason, details, code } = body as Record<string, unknown>;
      this.event.responseStatus = {
        metadata: {},
        ...(status ? { status: String(status) } : {}),
        ...(message ? { message: String(message) } : {}),
        ...(reason ? { reason: String(reason) } : {}),
        ...(details ? { details } : {}),
        ...(typeof code === 'number' ? { code } : {}),
      };
    }
    if (this.level === 'RequestResponse' && this.event.verb !== 'watch') this.responseObject = body;
  }

  setStatusCode(code: number): void {
    const s: ResponseStatus = (this.event.responseStatus ??= { metadata: {} });
    s.code ??= code;
  }

  /** Emits the event at a stage, unless the policy omits it. */
  emit(stage: Stage): void {
    if (this.config.omitStages.has(stage)) return;
    const e = this.event;
    const withBodies = stage === 'ResponseComplete' || stage === 'Panic';
    const requestObject = withBodies && levelAtLeast(this.level, 'Request') ? this.requestObjectForLog() : undefined;
    const responseObject = withBodies && this.responseObject !== undefined ? this.responseObjectForLog() : undefined;
    const event: AuditEvent = {
      kind: e.kind,
      apiVersion: e.apiVersion,
      level: e.level,
      auditID: e.auditID,
      stage,
      requestURI: e.requestURI,
      verb: e.verb,
      user: e.user,
      ...(e.impersonatedUser ? { impersonatedUser: e.impersonatedUser } : {}),
      ...(e.sourceIPs ? { sourceIPs: e.sourceIPs } : {}),
      ...(e.userAgent ? { userAgent: e.userAgent } : {}),
      ...(e.objectRef ? { objectRef: { ...e.objectRef } } : {}),
      ...(stage !== 'RequestReceived' && e.responseStatus ? { responseStatus: { ...e.responseStatus } } : {}),
      ...(requestObject !== undefined ? { requestObject } : {}),
      ...(responseObject !== undefined ? { responseObject } : {}),
      requestReceivedTimestamp: e.requestReceivedTimestamp,
      stageTimestamp: this.now(),
      ...(e.annotations ? { annotations: { ...e.annotations } } : {}),
    };
    this.sink.processEvent(event);
  }

  private responseObjectForLog(): unknown {
    const body = this.responseObject;
    if (body instanceof RawJson) return this.objectForLog(JSON.parse(body.text));
    return this.objectForLog(listEnvelopeGoForm(body) ?? toGoForm(body));
  }

  private requestObjectForLog(): unknown {
    if (this.requestObject !== undefined) return this.objectForLog(toGoForm(this.requestObject));
    if (!this.requestBody) return undefined;
    const { buf, contentType } = this.requestBody;
    try {
      const type = contentType.split(';')[0].trim().toLowerCase();
      if (type === 'application/vnd.kubernetes.protobuf') return this.objectForLog(decodeProtobufObject(buf));
      if (type.endsWith('yaml')) return this.objectForLog(parseYamlText(buf.toString('utf8')));
      return this.objectForLog(JSON.parse(buf.toString('utf8')));
    } catch {
      // a body the handler refused as undecodable: the event says so through its status
      return undefined;
    }
  }

  private objectForLog(obj: unknown): unknown {
    if (!this.config.omitManagedFields || !isRecord(obj)) return obj;
    const strip = (o: unknown): unknown => {
      if (!isRecord(o) || !isRecord(o.metadata) || !('managedFields' in o.metadata)) return o;
      const { managedFields: _omitted, ...metadata } = o.metadata;
      return { ...o, metadata };
    };
    const top = strip(obj) as Record<string, unknown>;
    return Array.isArray(top.items) ? { ...top, items: top.items.map(strip) } : top;
  }
}

/* The audit record travels with the request (upstream: the request context). */
const records = new WeakMap<IncomingMessage, RequestAudit>();

export function attachAudit(req: IncomingMessage, audit: RequestAudit): void {
  records.set(req, audit);
}

export function auditOf(req: IncomingMessage | undefined): RequestAudit | undefined {
  return req ? records.get(req) : undefined;
}

/** Handlers call these; they do nothing for requests that are not audited. */
export function auditRequestObject(req: IncomingMessage, obj: unknown): void {
  records.get(req)?.recordRequestObject(obj);
}

export function auditRequestBody(req: IncomingMessage, buf: Buffer): void {
  records.get(req)?.recordRequestBody(buf, req.headers['content-type']);
}

export function auditResponseObject(res: ServerResponse, body: unknown): void {
  const req = res.req as IncomingMessage | undefined;
  if (req) records.get(req)?.recordResponseObject(body);
}

/** The answer to a request that has no ServerResponse (a refused upgrade). */
export function auditResponse(req: IncomingMessage, body: unknown): void {
  records.get(req)?.recordResponseObject(body);
}

/** Adds an annotation to the request's audit event (e.g. an admission plugin's decision). */
export function addAuditAnnotation(req: IncomingMessage, key: string, value: string): void {
  records.get(req)?.annotate(key, value);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
