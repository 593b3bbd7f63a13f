import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeSwaggerDocument } from './gnostic-v2.js';
import { swaggerDocument } from './v2.js';
import { openApiDocument, openApiDocumentHash, openApiIndex } from './v3.js';

/**
 * Serves `/openapi/v2` (JSON, or gnostic protobuf when asked for) and
 * `/openapi/v3[/<group-version>]`. Documents are rendered once and answered
 * from memory, with an ETag so kubectl's cached copies revalidate cheaply.
 * Returns false for paths that are not OpenAPI documents.
 */

/** What kubectl asks for. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/**
 * What the response says it is: the same type without the `@`, which Go's
 * mime.ParseMediaType (run by client-go on every response) rejects.
 */
export const OPENAPI_V2_PROTOBUF_RESPONSE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

interface Rendered {
  body: Buffer;
  etag: string;
  contentType: string;
}

const rendered = new Map<string, Rendered>();

function render(key: string, contentType: string, produce: () => Uint8Array | string): Rendered {
  let r = rendered.get(key);
  if (!r) {
    const produced = produce();
    const body = typeof produced === 'string' ? Buffer.from(produced) : Buffer.from(produced.buffer, produced.byteOffset, produced.byteLength);
    r = { body, contentType, etag: `"${createHash('sha512').update(body).digest('hex').slice(0, 64).toUpperCase()}"` };
    rendered.set(key, r);
  }
  return r;
}

export function serveOpenApi(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] !== 'openapi') return false;
  if (parts[1] === 'v2' && parts.length === 2) {
    const accept = req.headers.accept ?? '';
    const protobuf = accept.includes(OPENAPI_V2_PROTOBUF) || accept.includes(OPENAPI_V2_PROTOBUF_RESPONSE);
    const doc = protobuf
      ? render('v2.pb', OPENAPI_V2_PROTOBUF_RESPONSE, () => encodeSwaggerDocument(swaggerDocument()))
      : render('v2.json', 'application/json', () => JSON.stringify(swaggerDocument()));
    write(req, res, doc, 'no-cache, private');
    return true;
  }
  if (parts[1] !== 'v3') return false;
  if (parts.length === 2) {
    write(req, res, render('v3', 'application/json', () => JSON.stringify(openApiIndex())), 'no-cache, private');
    return true;
  }
  const gv = parts[2] === 'api' && parts.length === 4 ? { group: '', version: parts[3] } : parts[2] === 'apis' && parts.length === 5 ? { group: parts[3], version: parts[4] } : undefined;
  if (!gv || !openApiDocument(gv.group, gv.version)) return false;
  const { group, version } = gv;
  const doc = render(`v3/${group}/${version}`, 'application/json', () => JSON.stringify(openApiDocument(group, version)));
  const hash = new URL(req.url ?? '/', 'https://skiff').searchParams.get('hash');
  // A URL naming the current hash never changes; anything else must revalidate.
  write(req, res, doc, hash && hash === openApiDocumentHash(group, version) ? 'public, immutable' : 'no-cache, private');
  return true;
}

function write(req: IncomingMessage, res: ServerResponse, doc: Rendered, cacheControl: string): void {
  const headers = { 'Content-Type': doc.contentType, ETag: doc.etag, 'Cache-Control': cacheControl, Vary: 'Accept' };
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim() === doc.etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, 'Content-Length': String(doc.body.length) });
  res.end(req.method === 'HEAD' ? undefined : doc.body);
}
