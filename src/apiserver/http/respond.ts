import type { ServerResponse } from 'node:http';
import { stringify } from 'yaml';
import { listEnvelopeGoForm, toGoForm } from '../../api/json/go-form.js';
import { PROTOBUF_CONTENT_TYPE } from '../../api/protobuf/decode-protobuf-object.js';
import { canEncodeProtobuf, encodeProtobufObject } from '../../api/protobuf/encode-protobuf-object.js';
import { escapeGoJson, goJson } from '../../api/json/go-json.js';
import { isPrettyPrint } from '../../machinery/query/options.js';
import { ApiError, notAcceptable } from '../../machinery/api-error.js';
import { parseAccept, type MediaType } from './media-type.js';
import { auditResponseObject, RawJson } from '../audit/request-audit.js';

/** What a client asked to get back. */
export type Rendering =
  | { kind: 'json' }
  | { kind: 'yaml' }
  | { kind: 'protobuf' }
  | { kind: 'table'; version: 'v1' | 'v1beta1' }
  | { kind: 'metadata'; version: 'v1' | 'v1beta1'; protobuf?: boolean };

const NOT_ACCEPTABLE =
  'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';

export interface NegotiateOptions {
  allowTable: boolean;
  /**
   * Whether the resource's own objects can be sent as protobuf (built-in
   * kinds; not custom resources, whose PartialObjectMetadata still can, as
   * upstream's). When not, a protobuf clause is skipped and the next one in
   * the Accept header (e.g. `application/json`) answers.
   */
  allowProtobuf: boolean;
}

/** Picks the first acceptable rendering from the Accept header, as upstream's content negotiation. */
export function negotiate(accept: string | undefined, opts: NegotiateOptions): Rendering {
  for (const m of parseAccept(accept)) {
    const r = renderingOf(m, opts);
    if (r) return r;
  }
  throw notAcceptable(NOT_ACCEPTABLE);
}

function renderingOf(m: MediaType, opts: NegotiateOptions): Rendering | undefined {
  const as = m.params.as;
  const protobuf = m.type === PROTOBUF_CONTENT_TYPE;
  if ((m.type === 'application/json' || protobuf) && as) {
    if (m.params.g !== 'meta.k8s.io') return undefined;
    const version = m.params.v === 'v1beta1' ? 'v1beta1' : m.params.v === 'v1' ? 'v1' : undefined;
    if (!version) return undefined;
    // upstream serves Table only as JSON (it has no protobuf form)
    if (as === 'Table' && opts.allowTable && !protobuf) return { kind: 'table', version };
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return protobuf ? { kind: 'metadata', version, protobuf } : { kind: 'metadata', version };
    return undefined;
  }
  if (m.type === 'application/json' || m.type === '*/*' || m.type === 'application/*') return { kind: 'json' };
  if (m.type === 'application/yaml') return { kind: 'yaml' };
  if (protobuf && opts.allowProtobuf) return { kind: 'protobuf' };
  return undefined;
}

export function contentTypeOf(r: Rendering): string {
  switch (r.kind) {
    case 'yaml':
      return 'application/yaml';
    case 'protobuf':
      return PROTOBUF_CONTENT_TYPE;
    case 'table':
      return `application/json;as=Table;v=${r.version};g=meta.k8s.io`;
    case 'metadata':
      return `${r.protobuf ? PROTOBUF_CONTENT_TYPE : 'application/json'};as=PartialObjectMetadata;v=${r.version};g=meta.k8s.io`;
    default:
      return 'application/json';
  }
}

function isProtobuf(r: Rendering): boolean {
  return r.kind === 'protobuf' || (r.kind === 'metadata' && r.protobuf === true);
}

/** Whether the client asked for indented JSON (`pretty`, or curl, Wget and browsers by default). */
function wantsPretty(res: ServerResponse): boolean {
  const req = res.req as ServerResponse['req'] | undefined;
  if (!req?.url) return false;
  const q = req.url.indexOf('?');
  return isPrettyPrint(new URLSearchParams(q >= 0 ? req.url.slice(q + 1) : ''), req.headers['user-agent']);
}

/**
 * The body as Go's encoding/json writes the upstream type: objects of
 * built-in kinds in Go's form (stored list items already are), a trailing
 * newline, indentation when the client wants it pretty.
 */
export function writeBody(res: ServerResponse, code: number, body: unknown, rendering: Rendering = { kind: 'json' }, headers: Record<string, string> = {}): void {
  auditResponseObject(res, body);
  if (isProtobuf(rendering) && canEncodeProtobuf(body)) {
    const buf = encodeProtobufObject(body as Record<string, unknown>);
    res.writeHead(code, { 'Content-Type': contentTypeOf(rendering), 'Content-Length': String(buf.length), ...headers });
    res.end(buf);
    return;
  }
  // a body without a protobuf form (discovery, a Scale of a custom resource) goes out as JSON
  if (isProtobuf(rendering)) rendering = { kind: 'json' };
  const value = rendering.kind === 'json' || rendering.kind === 'yaml' ? listEnvelopeGoForm(body) ?? toGoForm(body) : body;
  const text = rendering.kind === 'yaml' ? stringify(value) : goJson(value, wantsPretty(res));
  const buf = Buffer.from(text);
  res.writeHead(code, { 'Content-Type': contentTypeOf(rendering), 'Content-Length': String(buf.length), ...headers });
  res.end(buf);
}

/** Writes JSON that is already serialized. */
export function writeJsonText(res: ServerResponse, code: number, json: string): void {
  auditResponseObject(res, new RawJson(json));
  const text = wantsPretty(res) ? escapeGoJson(JSON.stringify(JSON.parse(json), null, 2)) : `${json}\n`;
  const buf = Buffer.from(text);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': String(buf.length) });
  res.end(buf);
}

/** Writes JSON already serialized as parts (a list around its items' stored bytes), streamed in large chunks: no string in between. */
export async function writeJsonParts(res: ServerResponse, code: number, parts: readonly Uint8Array[]): Promise<void> {
  if (wantsPretty(res)) {
    writeJsonText(res, code, Buffer.concat(parts).toString('utf8'));
    return;
  }
  auditResponseObject(res, new RawJson(parts));
  await writeParts(res, code, 'application/json', [...parts, NEWLINE]);
}

/** Writes a protobuf body already encoded as parts (a list around its items' encoded messages); `audited` is what an audit log records. */
export async function writeProtobufParts(res: ServerResponse, code: number, contentType: string, parts: readonly Uint8Array[], audited: RawJson): Promise<void> {
  auditResponseObject(res, audited);
  await writeParts(res, code, contentType, parts);
}

/** How much of a large body is copied together before it is written: big enough for few TLS writes, small enough to start sending early. */
const CHUNK_BYTES = 1 << 20;

/**
 * Sends a body given as many small parts (a list's items): with its
 * Content-Length, in chunks of about CHUNK_BYTES, waiting for the socket to
 * drain between them, so the first bytes leave while later ones are copied
 * and a slow client holds one chunk, not a second copy of the whole body.
 */
async function writeParts(res: ServerResponse, code: number, contentType: string, parts: readonly Uint8Array[]): Promise<void> {
  let total = 0;
  for (const part of parts) total += part.length;
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': String(total) });
  let chunk = Buffer.allocUnsafe(Math.min(total, CHUNK_BYTES));
  let at = 0;
  const flush = async (last: boolean) => {
    const out = chunk.subarray(0, at);
    if (last) {
      res.end(out);
      return;
    }
    const drained = res.write(out);
    chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    at = 0;
    if (!drained && !res.destroyed) await waitForDrain(res);
  };
  for (const part of parts) {
    if (res.destroyed) return;
    if (part.length >= CHUNK_BYTES) {
      // a part as large as a chunk goes out as it is
      if (at > 0) await flush(false);
      if (!res.write(part) && !res.destroyed) await waitForDrain(res);
      continue;
    }
    if (at + part.length > chunk.length) await flush(false);
    chunk.set(part, at);
    at += part.length;
  }
  await flush(true);
}

function waitForDrain(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

const NEWLINE = Buffer.from('\n');

/** The one place errors become HTTP responses. */
export function writeError(res: ServerResponse, err: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string> = {};
  if (err.details?.retryAfterSeconds) headers['Retry-After'] = String(err.details.retryAfterSeconds);
  writeBody(res, err.code, err.toStatus(), statusRendering(res.req?.headers.accept), headers);
}

/**
 * A Status goes out as protobuf when that is the client's first choice
 * among the media types a Status has (upstream's ErrorNegotiated), even for
 * resources whose objects are JSON-only; otherwise as JSON.
 */
function statusRendering(accept: string | undefined): Rendering {
  for (const m of parseAccept(accept)) {
    if (m.type === PROTOBUF_CONTENT_TYPE && !m.params.as) return { kind: 'protobuf' };
    if (m.type === 'application/json' || m.type === 'application/yaml' || m.type === '*/*' || m.type === 'application/*') return { kind: 'json' };
  }
  return { kind: 'json' };
}
