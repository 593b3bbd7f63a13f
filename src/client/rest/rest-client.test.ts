import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { ApiError, conflict } from '../../machinery/api-error.js';
import { FaultProxy } from '../../testing/fault-proxy.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { Client } from './client.js';
import { NetworkError } from './network-error.js';
import { isAlreadyExists, isConflict, isGone, isNotFound, isTooManyRequests } from './error-predicates.js';
import { resourcePath } from './resource-path.js';
import type { WatchEvent } from './watch-event.js';
import { waitFor } from '../testing/wait-for.js';
import { PODS } from '../../api/resource-refs.js';

let api: TestApiServer;
let server: FaultProxy;
let client: Client;

before(async () => {
  api = await startTestApiServer({ namespaces: ['crud', 'list', 'watch', 'cut', 'sub', 'retry', 'rl'], bookmarkIntervalMs: 3_600_000 });
  server = new FaultProxy(api);
  const url = await server.start();
  client = new Client({ server: url, token: 'secret', qps: -1 }, { component: 'test' });
});
after(async () => {
  client.close();
  await server.close();
  await api.stop();
});

const currentResourceVersion = async () => String(await api.storage.currentRevision());

const pod = (name: string, labels: Record<string, string> = {}): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'i' }] } });

test('resourcePath builds core, group, namespaced and subresource paths', () => {
  assert.equal(resourcePath({ ...PODS }), '/api/v1/pods');
  assert.equal(resourcePath({ ...PODS, namespace: 'ns', name: 'a', subresource: 'status' }), '/api/v1/namespaces/ns/pods/a/status');
  assert.equal(resourcePath({ group: 'apps', version: 'v1', resource: 'deployments', namespace: 'x', name: 'd' }), '/apis/apps/v1/namespaces/x/deployments/d');
  assert.equal(resourcePath({ group: '', version: 'v1', resource: 'namespaces', name: 'a b' }), '/api/v1/namespaces/a%20b');
  assert.throws(() => resourcePath({ ...PODS, name: '' }), RangeError);
});

test('CRUD round trip with headers, typed errors and predicates', async () => {
  const pods = client.resource<Pod>(PODS).namespace('crud');
  const created = await pods.create(pod('a'), { fieldManager: 'me' });
  assert.equal(created.metadata?.namespace, 'crud');
  const req = server.requests.at(-1)!;
  assert.equal(req.headers['user-agent'], 'skiff/test');
  assert.equal(req.headers.authorization, 'Bearer secret');
  assert.equal(req.headers.accept, 'application/json');
  assert.equal(req.url.searchParams.get('fieldManager'), 'me');

  await assert.rejects(pods.create(pod('a')), (e) => isAlreadyExists(e) && e instanceof ApiError && e.code === 409);
  const got = await pods.get('a');
  assert.equal(got.metadata?.uid, created.metadata?.uid);

  const updated = await pods.update({ ...got, metadata: { ...got.metadata, labels: { x: '1' } } });
  await assert.rejects(pods.update(got), isConflict); // stale resourceVersion
  const patched = await pods.patch('a', { metadata: { labels: { y: '2' } } }, 'merge');
  assert.deepEqual(patched.metadata?.labels, { x: '1', y: '2' });
  assert.equal(server.requests.at(-1)!.headers['content-type'], 'application/merge-patch+json');
  assert.notEqual(updated.metadata?.resourceVersion, patched.metadata?.resourceVersion);

  const withStatus = await pods.updateStatus({ ...patched, status: { phase: 'Running' } });
  assert.equal(withStatus.status?.phase, 'Running');
  assert.equal(server.requests.at(-1)!.url.pathname, '/api/v1/namespaces/crud/pods/a/status');

  await pods.delete('a', { propagationPolicy: 'Background', gracePeriodSeconds: 0 });
  assert.deepEqual(server.requests.at(-1)!.body, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', gracePeriodSeconds: 0 });
  await assert.rejects(pods.get('a'), (e) => isNotFound(e) && !isConflict(e));
});

test('list pages with limit/continue and selectors; deleteCollection', async () => {
  const pods = client.resource<Pod>(PODS).namespace('list');
  for (const n of ['p1', 'p2', 'p3']) await pods.create(pod(n, { app: n === 'p3' ? 'other' : 'web' }));
  const first = await pods.list({ limit: 2 });
  assert.equal(first.items.length, 2);
  assert.ok(first.metadata.continue);
  const second = await pods.list({ limit: 2, continue: first.metadata.continue });
  assert.deepEqual(second.items.map((p) => p.metadata?.name), ['p3']);
  const web = await pods.list({ labelSelector: 'app=web' });
  assert.deepEqual(web.items.map((p) => p.metadata?.name), ['p1', 'p2']);
  const everywhere = await client.resource<Pod>(PODS).list();
  assert.ok(everywhere.items.length >= 3);
  assert.equal(server.requests.at(-1)!.url.pathname, '/api/v1/pods');
  await pods.deleteCollection({ labelSelector: 'app=web' });
  assert.deepEqual((await pods.list()).items.map((p) => p.metadata?.name), ['p3']);
});

test('watch yields parsed events, including a 410 ERROR as a Status', async () => {
  const pods = client.resource<Pod>(PODS).namespace('watch');
  const ac = new AbortController();
  const rv = await currentResourceVersion();
  const seen: WatchEvent<Pod>[] = [];
  const started = server.watchesStarted;
  const done = (async () => {
    for await (const ev of pods.watch({ resourceVersion: rv, allowWatchBookmarks: true, signal: ac.signal })) {
      seen.push(ev);
      if (ev.type === 'BOOKMARK') break;
    }
  })();
  await pods.create(pod('w1'));
  await pods.delete('w1');
  await waitFor(() => server.watchesStarted > started, 'watch to start');
  server.sendBookmark('Pod');
  await done;
  assert.deepEqual(seen.map((e) => e.type), ['ADDED', 'DELETED', 'BOOKMARK']);
  assert.equal(seen[2].object.metadata?.resourceVersion, await currentResourceVersion());
  ac.abort();

  await api.compact();
  const events: WatchEvent<Pod>[] = [];
  for await (const ev of pods.watch({ resourceVersion: rv })) events.push(ev);
  assert.equal(events.length, 1);
  assert.equal(events[0].type, 'ERROR');
  assert.equal(events[0].type === 'ERROR' && events[0].object.code, 410);
});

test('watch is cut mid-stream: NetworkError; abort ends iteration quietly', async () => {
  const pods = client.resource<Pod>(PODS).namespace('cut');
  let started = server.watchesStarted;
  const it = pods.watch()[Symbol.asyncIterator](); // no resourceVersion: the earlier test compacted history
  const next = it.next();
  await waitFor(() => server.watchesStarted > started, 'watch to start');
  server.dropWatches();
  await assert.rejects(next, NetworkError);

  const ac = new AbortController();
  started = server.watchesStarted;
  const loop = (async () => {
    let n = 0;
    for await (const _ of pods.watch({ signal: ac.signal })) n++;
    return n;
  })();
  await waitFor(() => server.watchesStarted > started, 'second watch to start');
  ac.abort();
  assert.equal(await loop, 0);
});

test('subresources: binding and scale', async () => {
  const pods = client.resource<Pod>(PODS).namespace('sub');
  await pods.create(pod('b'));
  await pods.createSubresource('b', 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'b' }, target: { kind: 'Node', name: 'n1' } });
  assert.equal((await pods.get('b')).spec?.nodeName, 'n1');
  const deps = client.resource<Deployment>({ group: 'apps', version: 'v1', resource: 'deployments' }).namespace('sub');
  const labels = { app: 'd' };
  await deps.create({ metadata: { name: 'd' }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'i' }] } } } });
  const scale = await deps.getSubresource<{ spec: { replicas: number } }>('d', 'scale');
  assert.equal(scale.spec.replicas, 1);
  await deps.updateSubresource('d', 'scale', { ...scale, spec: { replicas: 4 } });
  assert.equal((await deps.get('d')).spec?.replicas, 4);
});

test('429 with Retry-After is retried; other errors decode; network errors are NetworkError', async () => {
  const pods = client.resource<Pod>(PODS).namespace('retry');
  server.failNext((r) => r.url.pathname.endsWith('/retry/pods/x'), new ApiError(429, 'TooManyRequests', 'slow down'), { retryAfter: 0 });
  await assert.rejects(pods.get('x'), isNotFound); // retried, then the real 404
  server.failNext((r) => r.url.pathname.endsWith('/retry/pods/y'), conflict({ group: '', resource: 'pods' }, 'y', 'boom'));
  await assert.rejects(pods.get('y'), (e) => isConflict(e) && (e as ApiError).details?.name === 'y' && !isGone(e));
  server.failNext((r) => r.url.pathname.endsWith('/retry/pods/z'), new ApiError(429, 'TooManyRequests', 'no'));
  await assert.rejects(pods.get('z'), isTooManyRequests);

  const dead = new Client({ server: 'http://127.0.0.1:1', qps: -1 });
  await assert.rejects(dead.resource<Pod>(PODS).namespace('x').get('a'), (e) => e instanceof NetworkError && e.code === 'ECONNREFUSED');
  dead.close();
});

test('token file is read for bearer auth; client rate limit delays bursts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tok-'));
  writeFileSync(join(dir, 'token'), 'from-file\n');
  const limited = new Client({ server: `http://127.0.0.1:${(await serverPort())}`, tokenFile: join(dir, 'token'), qps: 20, burst: 2 });
  const pods = limited.resource<Pod>(PODS).namespace('rl');
  const start = Date.now();
  for (let i = 0; i < 4; i++) await pods.list();
  // burst 2, then two more at 20 qps: at least ~100ms.
  assert.ok(Date.now() - start >= 90, `took ${Date.now() - start}ms`);
  assert.equal(server.requests.at(-1)!.headers.authorization, 'Bearer from-file');
  limited.close();
});

async function serverPort(): Promise<number> {
  return Number(new URL(client.rest.config.server).port);
}

test('rate limit: client-go defaults 5/10; Client options override the config; negative qps disables it', () => {
  const limits = (c: Client) => (c.rest.limiter ? { qps: c.rest.limiter.qps, burst: c.rest.limiter.burst } : null);
  const url = 'http://127.0.0.1:1';
  const clients = [
    new Client({ server: url }),
    new Client({ server: url, qps: 20, burst: 40 }),
    new Client({ server: url, qps: 20, burst: 40 }, { qps: 50, burst: 100 }),
    new Client({ server: url }, { qps: -1 }),
  ];
  assert.deepEqual(clients.map(limits), [{ qps: 5, burst: 10 }, { qps: 20, burst: 40 }, { qps: 50, burst: 100 }, null]);
  for (const c of clients) c.close();
});
