import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceInfo } from '../../api/resource-info.js';
import { parseAccept } from '../http/media-type.js';
import { writeBody } from '../http/respond.js';
import { aggregatedDiscovery } from './aggregated.js';
import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions } from './legacy.js';

/** What discovery needs of the registry: the served resources and a per-generation memo. */
export interface DiscoverySource {
  resources(): ResourceInfo[];
  derived<T>(key: string, produce: () => T): T;
  /** A group/version whose server is not available now (aggregated discovery marks it `Stale`). */
  isStale?(group: string, version: string): boolean;
}

interface Aggregated {
  /** The document's items as JSON, shared by v2 and v2beta1 (only apiVersion differs). */
  items: string;
  /** Upstream's ETag: upper-case hex SHA-512 of the serialized document. */
  etag: string;
}

/**
 * Serves discovery from the live registry: `/api` and `/apis` (aggregated,
 * `apidiscovery.k8s.io` v2 or v2beta1, when the client asks for it; the
 * legacy APIVersions/APIGroupList otherwise), `/apis/<group>`, `/api/v1` and
 * `/apis/<group>/<version>`. Documents are built once per registry
 * generation. The aggregated document carries an ETag that changes exactly
 * when its content does, and a matching If-None-Match is answered 304: this
 * is what kubectl's disk cache revalidates with. Returns false for other paths.
 */
export function serveDiscovery(req: IncomingMessage, res: ServerResponse, path: string, source: DiscoverySource): boolean {
  if (path === '/api' || path === '/apis') {
    const legacyPath = path === '/api';
    const version = aggregatedVersion(req.headers.accept);
    if (version) {
      writeAggregated(req, res, version, source.derived(`discovery:aggregated:${path}`, () => aggregated(source, legacyPath)));
      return true;
    }
    writeBody(res, 200, legacyPath ? apiVersions(`${req.socket.localAddress}:${req.socket.localPort}`) : source.derived('discovery:apis', () => apiGroupList(source.resources())));
    return true;
  }
  const parts = path.split('/').filter(Boolean);
  let doc: unknown;
  if (parts[0] === 'apis' && parts.length === 2) doc = source.derived(`discovery:${path}`, () => apiGroupDocument(parts[1], source.resources()));
  else if (parts[0] === 'api' && parts.length === 2) doc = source.derived(`discovery:${path}`, () => apiResourceList('', parts[1], source.resources()));
  else if (parts[0] === 'apis' && parts.length === 3) doc = source.derived(`discovery:${path}`, () => apiResourceList(parts[1], parts[2], source.resources()));
  if (!doc) return false;
  writeBody(res, 200, doc);
  return true;
}

/** The aggregated discovery version the client accepts as JSON, if any. */
function aggregatedVersion(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  for (const m of parseAccept(accept)) {
    if (m.params.g !== 'apidiscovery.k8s.io' || m.params.as !== 'APIGroupDiscoveryList') continue;
    if (m.params.v === 'v2' || m.params.v === 'v2beta1') return m.params.v;
  }
  return undefined;
}

function aggregated(source: DiscoverySource, legacyPath: boolean): Aggregated {
  const items = JSON.stringify(aggregatedDiscovery(legacyPath, 'v2', source.resources(), source.isStale?.bind(source)).items);
  return { items, etag: createHash('sha512').update(items).digest('hex').toUpperCase() };
}

function writeAggregated(req: IncomingMessage, res: ServerResponse, version: 'v2' | 'v2beta1', doc: Aggregated): void {
  const etag = `"${doc.etag}"`;
  const headers = { ETag: etag, Vary: 'Accept', 'Cache-Control': 'public' };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const body = Buffer.from(`{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/${version}","metadata":{},"items":${doc.items}}`);
  res.writeHead(200, {
    ...headers,
    'Content-Type': `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`,
    'Content-Length': String(body.length),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
