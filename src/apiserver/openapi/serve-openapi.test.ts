import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ApiRegistry } from '../api-registry.js';
import { inMemoryStorage } from '../in-memory-storage.js';
import { registerBuiltinResources } from '../registry/builtin-resources.js';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_RESPONSE, serveOpenApi } from './serve-openapi.js';

describe('serveOpenApi', () => {
  let server: Server;
  let base: string;
  const registry = new ApiRegistry();
  registerBuiltinResources(registry, { storage: inMemoryStorage(), network: { serviceClusterIpRange: '10.96.0.0/12', nodePortRange: [30000, 32767] } });
  before(async () => {
    server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (!serveOpenApi(req, res, path, registry)) {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('serves /openapi/v2 as gnostic protobuf when asked, JSON otherwise', async () => {
    const pb = await fetch(`${base}/openapi/v2`, { headers: { accept: OPENAPI_V2_PROTOBUF } });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers.get('content-type'), OPENAPI_V2_PROTOBUF_RESPONSE);
    const bytes = new Uint8Array(await pb.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 5)], [0x0a, 0x03, 0x32, 0x2e, 0x30], 'field 1 "2.0"');
    const json = await fetch(`${base}/openapi/v2`, { headers: { accept: 'application/json' } });
    assert.equal(json.headers.get('content-type'), 'application/json');
    const doc = (await json.json()) as { swagger: string; definitions: Record<string, unknown> };
    assert.equal(doc.swagger, '2.0');
    assert.ok(doc.definitions['io.k8s.api.core.v1.Pod']);
  });

  it('answers If-None-Match with 304', async () => {
    const first = await fetch(`${base}/openapi/v3/apis/apps/v1`);
    const etag = first.headers.get('etag');
    assert.ok(etag);
    assert.equal(first.headers.get('cache-control'), 'no-cache, private');
    await first.arrayBuffer();
    const again = await fetch(`${base}/openapi/v3/apis/apps/v1`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
  });

  it('marks hashed URLs immutable and leaves unknown paths alone', async () => {
    const index = (await (await fetch(`${base}/openapi/v3`)).json()) as { paths: Record<string, { serverRelativeURL: string }> };
    const hashed = await fetch(base + index.paths['api/v1'].serverRelativeURL);
    assert.equal(hashed.headers.get('cache-control'), 'public, immutable');
    assert.equal(((await hashed.json()) as { openapi: string }).openapi, '3.0.0');
    for (const p of ['/openapi/v3/apis/nope/v1', '/openapi/v4', '/openapi/v3/api']) assert.equal((await fetch(base + p)).status, 404, p);
  });
});
