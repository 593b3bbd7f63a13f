import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeSwaggerDocument } from './gnostic-v2.js';
import type { ServedResource } from './operations.js';
import { swaggerDocument } from './v2.js';
import { openApiDocument, openApiHash, openApiIndex } from './v3.js';

/**
 * Serves `/openapi/v2` (JSON, or gnostic protobuf when asked for) and
 * `/openapi/v3[/<group-version>]` from the live registry. Documents are
 * rendered once per registry generation (so they follow resources added
 * and removed at run time) and carry an ETag, the upper-case hex SHA-512 of
 * their bytes, so kubectl's cached copies revalidate cheaply. A v3 URL
 * naming a hash that is no longer current is redirected (301) to the
 * current one, as upstream does. Returns false for paths that are not
 * OpenAPI documents.
 */

/** What serving needs of the registry: the served resources and a per-generation memo. */
export interface OpenApiSource {
  all(): readonly ServedResource[];
  derived<T>(key: string, produce: () => T): T;
}

/** What kubectl asks for. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/**
 * What the response says it is: the same type without the `@`, which Go's
 * mime.ParseMediaType (run by client-go on every response) rejects.
 */
export const OPENAPI_V2_PROTOBUF_RESPONSE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

interface Rendered {
  body: Buffer;
  hash: string;
  contentType: string;
}

function render(source: OpenApiSource, key: string, contentType: string, produce: () => Uint8Array | string | undefined): Rendered | undefined {
  return source.derived(`openapi:${key}`, () => {
    const produced = produce();
    if (produced === undefined) return undefined;
    const body = typeof produced === 'string' ? Buffer.from(produced) : Buffer.from(produced.buffer, produced.byteOffset, produced.byteLength);
    return { body, contentType, hash: openApiHash(body) };
  });
}

function groupVersionDocument(source: OpenApiSource, group: string, version: string): Rendered | undefined {
  return render(source, `v3/${group}/${version}`, 'application/json', () => {
    const doc = openApiDocument(source.all(), group, version);
    return doc && JSON.stringify(doc);
  });
}

export function serveOpenApi(req: IncomingMessage, res: ServerResponse, path: string, source: OpenApiSource): boolean {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] !== 'openapi') return false;
  if (parts[1] === 'v2' && parts.length === 2) {
    const accept = req.headers.accept ?? '';
    const protobuf = accept.includes(OPENAPI_V2_PROTOBUF) || accept.includes(OPENAPI_V2_PROTOBUF_RESPONSE);
    const swagger = () => source.derived('openapi:v2.doc', () => swaggerDocument(source.all()));
    const doc = protobuf
      ? render(source, 'v2.pb', OPENAPI_V2_PROTOBUF_RESPONSE, () => encodeSwaggerDocument(swagger()))
      : render(source, 'v2.json', 'application/json', () => JSON.stringify(swagger()));
    write(req, res, doc!, { 'Cache-Control': 'no-cache, private' });
    return true;
  }
  if (parts[1] !== 'v3') return false;
  if (parts.length === 2) {
    const index = render(source, 'v3', 'application/json', () =>
      JSON.stringify(openApiIndex(source.all(), (group, version) => groupVersionDocument(source, group, version)!.hash)),
    );
    write(req, res, index!, { 'Cache-Control': 'no-cache, private' });
    return true;
  }
  const gv = parts[2] === 'api' && parts.length === 4 ? { group: '', version: parts[3] } : parts[2] === 'apis' && parts.length === 5 ? { group: parts[3], version: parts[4] } : undefined;
  const doc = gv && groupVersionDocument(source, gv.group, gv.version);
  if (!doc) return false;
  const hash = new URL(req.url ?? '/', 'https://skiff').searchParams.get('hash');
  if (hash && hash !== doc.hash) {
    // an old hash (the resources changed since the client read the index): send it to the current document
    res.writeHead(301, { Location: `/openapi/v3/${parts.slice(2).join('/')}?hash=${doc.hash}`, 'Content-Length': '0' });
    res.end();
    return true;
  }
  // A URL naming the current hash never changes; anything else must revalidate.
  const expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
  write(req, res, doc, hash ? { 'Cache-Control': 'public, immutable', Expires: expires } : { 'Cache-Control': 'no-cache, private' });
  return true;
}

function write(req: IncomingMessage, res: ServerResponse, doc: Rendered, caching: Record<string, string>): void {
  const etag = `"${doc.hash}"`;
  const headers = { 'Content-Type': doc.contentType, ETag: etag, ...caching, Vary: 'Accept' };
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim() === etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, 'Content-Length': String(doc.body.length) });
  res.end(req.method === 'HEAD' ? undefined : doc.body);
}
