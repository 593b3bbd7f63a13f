import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { CUSTOM_RESOURCE_DEFINITIONS, RESOURCE_QUOTAS } from '../../api/resource-refs.js';
import { FakeClock } from '../../base/fake-clock.js';
import { Lister } from '../../client/cache/lister.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { ApiError } from '../../machinery/api-error.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { CustomResourceDiscovery } from './custom-resource-counts.js';
import { QuotaReconciler } from './quota-reconciler.js';

let api: TestApiServer;
const quotaIndex = new MapIndexer<ResourceQuota>();
const signal = new AbortController().signal;
const WIDGETS = { group: 'example.com', version: 'v1', resource: 'widgets' };

before(async () => {
  api = await startTestApiServer({ namespaces: ['team'] });
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }],
    },
  };
  await api.client.resource(CUSTOM_RESOURCE_DEFINITIONS).create(crd);
  const deadline = Date.now() + 10_000;
  while (!(await api.client.resource(WIDGETS).namespace('team').list().then(() => true, () => false))) {
    if (Date.now() > deadline) throw new Error('widgets not served in time');
    await new Promise((r) => setTimeout(r, 50));
  }
});
after(() => api.stop());

const quotas = () => api.client.resource<ResourceQuota>(RESOURCE_QUOTAS).namespace('team');
const widgets = () => api.client.resource(WIDGETS).namespace('team');
const widget = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name } });

async function reconcile(): Promise<ResourceQuota> {
  quotaIndex.replace((await quotas().list()).items, '');
  const discovery = new CustomResourceDiscovery(api.client, new FakeClock());
  const reconciler = new QuotaReconciler({
    client: api.client,
    quotas: new Lister(quotaIndex),
    sources: [],
    now: () => new Date(),
    customResources: async (group, resource, namespace, s) => {
      const gvr = await discovery.resolve(group, resource, s);
      return gvr ? (await api.client.resource(gvr).namespace(namespace).list({ signal: s })).items : undefined;
    },
  });
  await reconciler.reconcile('team/objects', signal);
  return quotas().get('objects');
}

test('count/<resource>.<group> of a custom resource: counted by the controller, enforced on create, given back on delete', async () => {
  await widgets().create(widget('before-quota'));
  await quotas().create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'objects' }, spec: { hard: { 'count/widgets.example.com': '2', 'count/gadgets.example.com': '1' } } });
  let q = await reconcile();
  assert.deepEqual(q.status?.used, { 'count/widgets.example.com': '1', 'count/gadgets.example.com': '0' }, 'existing widgets count; an unserved resource counts zero');

  await widgets().create(widget('second'));
  assert.equal((await quotas().get('objects')).status?.used?.['count/widgets.example.com'], '2', 'admission charged the create');
  await assert.rejects(widgets().create(widget('third')), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.code, 403);
    assert.equal(e.message, 'widgets.example.com "third" is forbidden: exceeded quota: objects, requested: count/widgets.example.com=1, used: count/widgets.example.com=2, limited: count/widgets.example.com=2');
    return true;
  });

  await widgets().delete('before-quota');
  q = await reconcile();
  assert.equal(q.status?.used?.['count/widgets.example.com'], '1');
  await widgets().create(widget('third'));
});

test('discovery answers for served, namespaced custom resources only', async () => {
  const clock = new FakeClock();
  const d = new CustomResourceDiscovery(api.client, clock);
  assert.deepEqual(await d.resolve('example.com', 'widgets', signal), WIDGETS);
  assert.equal(await d.resolve('example.com', 'gadgets', signal), undefined);
  assert.equal(await d.resolve('nowhere.example.org', 'things', signal), undefined);
  assert.equal(await d.resolve('', 'pods', signal), undefined);
});
