import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import type { Event, Node } from 'kubernetes-types/core/v1.js';
import { Lister } from '../../client/cache/lister.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { EventRecorder } from '../../client/events/event-recorder.js';
import { createLogger } from '../../machinery/logger.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { CidrSet } from './cidr-set.js';
import { RangeAllocator } from './range-allocator.js';
import { NODES } from '../../api/resource-refs.js';

let api: TestApiServer;
let recorder: EventRecorder;
const index = new MapIndexer<Node>();
const signal = new AbortController().signal;

beforeEach(async () => {
  api = await startTestApiServer();
  recorder = new EventRecorder({ client: api.client, component: 'cidrAllocator' });
});
afterEach(async () => {
  await recorder.stop();
  await api.stop();
});

const nodes = () => api.client.resource<Node>(NODES);
const createNode = (name: string, podCIDR?: string) => nodes().create({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: podCIDR ? { podCIDR, podCIDRs: [podCIDR] } : {} });

/** Mirrors the server into the lister, as the informer would. */
async function syncCache(): Promise<void> {
  index.replace((await nodes().list()).items, '');
}

function allocator(cidr = '10.42.0.0/16', mask = 24): RangeAllocator {
  return new RangeAllocator({ client: api.client, nodes: new Lister(index), cidrs: new CidrSet(cidr, mask), recorder, logger: createLogger('test', {}, () => undefined) });
}

test('nodes get distinct pod CIDRs; existing ones are repaired first; a deleted node\'s CIDR is released', async () => {
  await createNode('old', '10.42.0.0/24');
  await createNode('a');
  await createNode('b');
  await syncCache();
  const ipam = allocator();
  await ipam.reconcile('a', signal);
  await ipam.reconcile('b', signal);
  await ipam.reconcile('a', signal);
  const a = await nodes().get('a');
  const b = await nodes().get('b');
  assert.equal(a.spec?.podCIDR, '10.42.1.0/24');
  assert.deepEqual(a.spec?.podCIDRs, ['10.42.1.0/24']);
  assert.equal(b.spec?.podCIDR, '10.42.2.0/24');
  assert.equal((await nodes().get('old')).spec?.podCIDR, '10.42.0.0/24');

  // a reconcile from a stale cache (the patch not seen yet) repeats the same subnet
  await ipam.reconcile('a', signal);
  assert.equal((await nodes().get('a')).spec?.podCIDR, '10.42.1.0/24');

  await nodes().delete('old');
  await syncCache();
  await ipam.reconcile('old', signal);
  await createNode('c');
  await syncCache();
  await ipam.reconcile('c', signal);
  assert.equal((await nodes().get('c')).spec?.podCIDR, '10.42.3.0/24');
});

test('a full cluster CIDR records CIDRNotAvailable and retries later', async () => {
  await createNode('one');
  await createNode('two');
  await syncCache();
  const ipam = allocator('10.42.0.0/24', 24);
  assert.equal(await ipam.reconcile('one', signal), undefined);
  assert.deepEqual(await ipam.reconcile('two', signal), { requeueAfter: 30_000 });
  assert.equal((await nodes().get('two')).spec?.podCIDR, undefined);
  await recorder.stop();
  const events = await api.client.resource<Event>({ group: '', version: 'v1', resource: 'events' }).list();
  assert.ok(events.items.some((e) => e.reason === 'CIDRNotAvailable' && e.message === 'Node two status is now: CIDRNotAvailable'), JSON.stringify(events.items));
  // the first node's deletion frees the only subnet for the second
  await nodes().delete('one');
  await syncCache();
  await ipam.reconcile('one', signal);
  await ipam.reconcile('two', signal);
  assert.equal((await nodes().get('two')).spec?.podCIDR, '10.42.0.0/24');
});
