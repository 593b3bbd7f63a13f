import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { FaultProxy } from '../../testing/fault-proxy.js';
import { TestObjects } from '../../testing/objects.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { waitFor } from '../testing/wait-for.js';
import { Client } from '../rest/client.js';
import { listWatcherFor } from './list-watcher.js';
import { SharedIndexInformer } from './shared-informer.js';
import { SharedInformerFactory } from './shared-informer-factory.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { waitForCacheSync } from './wait-for-cache-sync.js';
import { metaNamespaceKey } from './store.js';
import { stripManagedFields } from './transform.js';
import { CONFIG_MAPS } from '../../api/resource-refs.js';

let api: TestApiServer;
let server: FaultProxy;
let objects: TestObjects;
let client: Client;
let ac: AbortController;

beforeEach(async () => {
  api = await startTestApiServer({ namespaces: ['a'], bookmarkIntervalMs: 3_600_000 });
  objects = new TestObjects(api.client);
  server = new FaultProxy(api);
  client = new Client({ server: await server.start(), qps: -1 });
  ac = new AbortController();
});
afterEach(async () => {
  ac.abort();
  client.close();
  await server.close();
  await api.stop();
});

/** Writes as another client would: not through the proxy, so not among `server.requests`. */
const put = (obj: ConfigMap) => objects.put(CONFIG_MAPS, obj);
const currentResourceVersion = async () => String(await api.storage.currentRevision());

const cm = (ns: string, name: string, data: Record<string, string> = {}): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name }, data });

type Note = string;
function recorder(notes: Note[]) {
  return {
    onAdd: (o: ConfigMap, initial: boolean) => notes.push(`add ${metaNamespaceKey(o)}${initial ? ' initial' : ''}`),
    onUpdate: (_: ConfigMap, n: ConfigMap) => notes.push(`update ${metaNamespaceKey(n)} ${n.data?.v ?? ''}`),
    onDelete: (o: ConfigMap | DeletedFinalStateUnknown<ConfigMap>) =>
      notes.push(o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key} ${o.obj.data?.v ?? ''}` : `delete ${metaNamespaceKey(o)}`),
  };
}

function informer(options: { resyncPeriod?: number } = {}): SharedIndexInformer<ConfigMap> {
  return new SharedIndexInformer<ConfigMap>({
    listerWatcher: listWatcherFor(client.resource<ConfigMap>(CONFIG_MAPS)),
    reflector: { pageSize: 2, backoff: { initial: 10, max: 50 } },
    ...options,
  });
}

const cacheKeys = (i: SharedIndexInformer<ConfigMap>): string[] => i.indexer.listKeys().sort();
const serverKeys = async (): Promise<string[]> => (await objects.list<ConfigMap>(CONFIG_MAPS)).map((o) => metaNamespaceKey(o)).sort();

test('paged initial list, then live events; late handlers get synthetic adds; objects are frozen', async () => {
  for (let i = 0; i < 5; i++) await put(cm('a', `c${i}`));
  const inf = informer();
  const notes: Note[] = [];
  inf.addEventHandler(recorder(notes));
  const run = inf.run(ac.signal);
  assert.equal(await waitForCacheSync(ac.signal, inf), true);
  assert.equal(notes.filter((n) => n.endsWith('initial')).length, 5);
  const lists = server.requests.filter((r) => r.url.searchParams.get('watch') === null);
  assert.deepEqual(lists.map((r) => r.url.searchParams.get('limit')), ['2', '2', '2']);
  assert.deepEqual(cacheKeys(inf), await serverKeys());

  const cms = client.resource<ConfigMap>(CONFIG_MAPS).namespace('a');
  await cms.create(cm('a', 'new'));
  await cms.patch('c0', { data: { v: '1' } }, 'merge');
  await cms.delete('c1');
  await waitFor(() => notes.length === 8, 'three live notifications');
  assert.deepEqual(notes.slice(5), ['add a/new', 'update a/c0 1', 'delete a/c1']);

  const late: Note[] = [];
  inf.addEventHandler(recorder(late));
  assert.equal(late.length, 5);
  assert.ok(late.every((n) => n.startsWith('add ') && !n.endsWith('initial')));

  const cached = inf.lister.namespace('a').get('c0')!;
  assert.throws(() => {
    (cached.data as Record<string, string>).v = 'mutated';
  }, TypeError);

  ac.abort();
  await run;
});

test('a dropped watch resumes from the last resourceVersion without relisting', async () => {
  await put(cm('a', 'x'));
  const inf = informer();
  const notes: Note[] = [];
  inf.addEventHandler(recorder(notes));
  const run = inf.run(ac.signal);
  await inf.whenSynced(ac.signal);
  await waitFor(() => server.watcherCount() === 1, 'watch');
  const written = await put(cm('a', 'y'));
  await waitFor(() => inf.lastSyncResourceVersion() === written.metadata?.resourceVersion, 'event applied');
  const watchesBefore = server.watchesStarted;
  const release = server.hold((r) => r.url.searchParams.get('watch') === 'true');
  server.dropWatches();
  await put(cm('a', 'z')); // happens while disconnected; replayed from history
  release();
  await waitFor(() => server.watchesStarted > watchesBefore, 'rewatch');
  const rewatch = server.requests.filter((r) => r.url.searchParams.get('watch') === 'true').at(-1)!;
  assert.equal(rewatch.url.searchParams.get('resourceVersion'), written.metadata?.resourceVersion);
  assert.equal(rewatch.url.searchParams.get('allowWatchBookmarks'), 'true');
  await waitFor(() => inf.indexer.getByKey('a/z') !== undefined, 'missed add replayed');
  assert.equal(server.requests.filter((r) => r.url.searchParams.get('watch') === null).length, 1, 'no relist');
  assert.deepEqual(notes, ['add a/x initial', 'add a/y', 'add a/z']);

  server.sendBookmark();
  const current = await currentResourceVersion();
  await waitFor(() => inf.lastSyncResourceVersion() === current, 'bookmark recorded');
  ac.abort();
  await run;
});

test('410 after compaction relists; objects deleted meanwhile become tombstones with last known state', async () => {
  await put(cm('a', 'keep'));
  await put(cm('a', 'gone', { v: 'last' }));
  const inf = informer();
  const notes: Note[] = [];
  inf.addEventHandler(recorder(notes));
  const run = inf.run(ac.signal);
  await inf.whenSynced(ac.signal);
  await waitFor(() => server.watcherCount() === 1, 'watch');
  // The rewatch waits until all of this is done: the informer cannot observe the delete.
  const release = server.hold((r) => r.url.searchParams.get('watch') === 'true');
  server.dropWatches();
  await objects.erase(CONFIG_MAPS, 'a', 'gone');
  await put(cm('a', 'added-meanwhile'));
  await api.compact();
  release();
  await waitFor(() => notes.some((n) => n.startsWith('tombstone')), 'tombstone');
  await waitFor(() => inf.indexer.getByKey('a/added-meanwhile') !== undefined, 'relisted');
  assert.ok(notes.includes('tombstone a/gone last'));
  assert.ok(notes.includes('update a/keep '));
  assert.ok(notes.includes('add a/added-meanwhile'));
  assert.deepEqual(cacheKeys(inf), await serverKeys());
  assert.equal(server.requests.filter((r) => r.url.searchParams.get('watch') === null).length, 2, 'one relist');
  ac.abort();
  await run;
});

test('list failures are retried with backoff until synced', async () => {
  await put(cm('a', 'x'));
  server.failNext((r) => r.url.searchParams.get('watch') === null, new (await import('../../machinery/api-error.js')).ApiError(503, 'ServiceUnavailable', 'later'), { times: 2 });
  const errors: unknown[] = [];
  const inf = new SharedIndexInformer<ConfigMap>({
    listerWatcher: listWatcherFor(client.resource<ConfigMap>(CONFIG_MAPS)),
    reflector: { backoff: { initial: 5, max: 20 }, onError: (e) => errors.push(e) },
  });
  const run = inf.run(ac.signal);
  assert.equal(await inf.whenSynced(ac.signal), true);
  assert.equal(errors.length, 2);
  ac.abort();
  await run;
});

test('resync replays cached objects as updates', async () => {
  await put(cm('a', 'x'));
  const inf = informer();
  const notes: Note[] = [];
  inf.addEventHandler(recorder(notes), { resyncPeriod: 20 });
  const run = inf.run(ac.signal);
  await waitFor(() => notes.filter((n) => n === 'update a/x ').length >= 2, 'two resyncs');
  ac.abort();
  await run;
});

test('factory shares one informer per resource; waitForCacheSync; shutdown awaits', async () => {
  await put(cm('a', 'x'));
  const factory = new SharedInformerFactory(client, { namespace: 'a' });
  const i1 = factory.forResource<ConfigMap>(CONFIG_MAPS);
  const i2 = factory.forResource<ConfigMap>(CONFIG_MAPS);
  assert.equal(i1, i2);
  factory.forResource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' });
  factory.start(ac.signal);
  assert.equal(await factory.waitForCacheSync(ac.signal), true);
  assert.equal(i1.lister.namespace('a').get('x')?.metadata?.name, 'x');
  assert.ok(server.requests.some((r) => r.url.pathname === '/apis/coordination.k8s.io/v1/namespaces/a/leases'));
  ac.abort();
  await factory.shutdown();
  const never = new AbortController();
  never.abort();
  assert.equal(await waitForCacheSync(never.signal, informer()), false);
});

test('a transform (stripManagedFields) applies to listed, added, updated and deleted objects; an update from a cached copy keeps the stored records', async () => {
  const cms = client.resource<ConfigMap>(CONFIG_MAPS).namespace('a');
  await cms.create(cm('a', 'listed'));
  const factory = new SharedInformerFactory(client, { namespace: 'a', informer: { transform: stripManagedFields } });
  const inf = factory.forResource<ConfigMap>(CONFIG_MAPS);
  const seen: ConfigMap[] = [];
  inf.addEventHandler({ onAdd: (o) => seen.push(o), onUpdate: (_, n) => seen.push(n), onDelete: (o) => seen.push(o instanceof DeletedFinalStateUnknown ? o.obj : o) });
  factory.start(ac.signal);
  assert.equal(await factory.waitForCacheSync(ac.signal), true);
  await cms.create(cm('a', 'added'));
  await waitFor(() => inf.lister.namespace('a').get('added') !== undefined, 'the added object cached');
  const cached = inf.lister.namespace('a').get('listed')!;
  await cms.update({ ...cached, data: { v: '1' } });
  await cms.delete('added');
  await waitFor(() => seen.length === 4, 'list, add, update and delete handled');
  assert.ok((await cms.get('listed')).metadata?.managedFields?.length, 'the server keeps its records');
  assert.deepEqual(seen.map((o) => [o.metadata?.name, o.metadata?.managedFields]), [['listed', undefined], ['added', undefined], ['listed', undefined], ['added', undefined]]);
  ac.abort();
  await factory.shutdown();
});

test('stripManagedFields copies only an object that has managedFields, and leaves its argument as it was', () => {
  const plain = cm('a', 'p');
  assert.equal(stripManagedFields(plain), plain);
  const recorded: ConfigMap = { ...cm('a', 'r'), metadata: { namespace: 'a', name: 'r', managedFields: [{ manager: 'm', operation: 'Update' }] } };
  const stripped = stripManagedFields(recorded);
  assert.deepEqual(stripped, { ...recorded, metadata: { namespace: 'a', name: 'r' } });
  assert.equal(recorded.metadata?.managedFields?.length, 1);
});
