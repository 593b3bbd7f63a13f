import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { CONFIG_MAPS, CUSTOM_RESOURCE_DEFINITIONS, NAMESPACES } from '../../api/resource-refs.js';
import { Lister } from '../../client/cache/lister.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { discoverNamespacedResources } from './discovered-resources.js';
import { NamespaceReconciler } from './namespace-reconciler.js';

let api: TestApiServer;
const WIDGETS = { group: 'example.com', version: 'v1', resource: 'widgets' };
const signal = new AbortController().signal;

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

test('discovery finds custom resources beside the built-in table', async () => {
  const { resources, failures } = await discoverNamespacedResources(api.client, signal);
  assert.deepEqual(failures, []);
  assert.ok(resources.some((r) => r.group === 'example.com' && r.version === 'v1' && r.resource === 'widgets'));
  assert.ok(resources.some((r) => r.group === '' && r.resource === 'configmaps'));
  assert.ok(!resources.some((r) => r.resource === 'customresourcedefinitions'), 'cluster-scoped resources are not emptied');
});

test('a namespace holding a custom resource (with a finalizer) deletes fully once the finalizer goes', async () => {
  const widgets = api.client.resource(WIDGETS).namespace('team');
  await widgets.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', finalizers: ['example.com/cleanup'] } });
  await widgets.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2' } });
  await api.client.resource<ConfigMap>(CONFIG_MAPS).namespace('team').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  await api.client.resource<Namespace>(NAMESPACES).delete('team');

  const index = new MapIndexer<Namespace>();
  const reconciler = new NamespaceReconciler({ client: api.client, namespaces: new Lister(index) });
  const pass = async () => {
    index.replace((await api.client.resource<Namespace>(NAMESPACES).list()).items, '');
    return reconciler.reconcile('team', signal);
  };
  const first = await pass();
  assert.ok(first?.requeueAfter, 'content remains: looked at again');
  const ns = await api.client.resource<Namespace>(NAMESPACES).get('team');
  const remaining = ns.status?.conditions?.find((c) => c.type === 'NamespaceContentRemaining');
  assert.equal(remaining?.status, 'True');
  assert.match(remaining?.message ?? '', /widgets\.example\.com has 1 resource instances/);
  assert.equal(ns.status?.conditions?.find((c) => c.type === 'NamespaceFinalizersRemaining')?.message, 'Some content in the namespace has finalizers remaining: example.com/cleanup');
  assert.equal((await widgets.list()).items.length, 1, 'w2 is gone; w1 waits for its finalizer');

  const w1 = await widgets.get('w1');
  await widgets.update({ ...w1, metadata: { ...w1.metadata, finalizers: [] } });
  assert.equal(await pass(), undefined, 'empty: the kubernetes finalizer is removed');
  await assert.rejects(api.client.resource<Namespace>(NAMESPACES).get('team'), (err: unknown) => isNotFound(err));
});
