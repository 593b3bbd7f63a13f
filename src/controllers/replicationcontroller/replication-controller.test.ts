import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import { PODS, REPLICATION_CONTROLLERS } from '../../api/resource-refs.js';
import { waitFor } from '../../client/testing/wait-for.js';
import { ApiError } from '../../machinery/api-error.js';
import { startTestCluster, type TestCluster } from '../../testing/test-cluster.js';

let cluster: TestCluster;
before(async () => {
  cluster = await startTestCluster({ nodes: 1, namespaces: ['rc'], controllers: ['replicationcontroller', 'garbagecollector'], scheduler: true });
});
after(() => cluster.stop());

const rcs = () => cluster.client.resource<ReplicationController>(REPLICATION_CONTROLLERS).namespace('rc');
const pods = () => cluster.client.resource<Pod>(PODS).namespace('rc');
const template = (labels: Record<string, string>) => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
const podsOf = async (app: string) => (await pods().list({ labelSelector: `app=${app}` })).items.filter((p) => !p.metadata?.deletionTimestamp);

test('defaults: selector, labels and replicas from the template, as upstream', async () => {
  const rc = await rcs().create({ metadata: { name: 'defaults' }, spec: { replicas: 0, template: template({ app: 'defaults', tier: 'x' }) } });
  assert.deepEqual(rc.spec?.selector, { app: 'defaults', tier: 'x' });
  assert.deepEqual(rc.metadata?.labels, { app: 'defaults', tier: 'x' });
  assert.equal(rc.metadata?.generation, 1);
  const one = await rcs().create({ metadata: { name: 'one', labels: { own: 'label' } }, spec: { selector: { app: 'one' }, template: template({ app: 'one', extra: 'y' }) } });
  assert.equal(one.spec?.replicas, 1);
  assert.deepEqual(one.metadata?.labels, { own: 'label' });
  await rcs().delete('one');
});

test('validation: a selector that does not match the template labels is 422 on spec.template.metadata.labels', async () => {
  await assert.rejects(
    rcs().create({ metadata: { name: 'bad' }, spec: { selector: { app: 'other' }, template: template({ app: 'bad' }) } }),
    (err: unknown) => err instanceof ApiError && err.code === 422 && /spec\.template\.metadata\.labels: Invalid value/.test(err.message),
  );
  await assert.rejects(
    rcs().create({ metadata: { name: 'bad' }, spec: {} }),
    (err: unknown) => err instanceof ApiError && err.code === 422 && /spec\.selector: Required value/.test(err.message) && /spec\.template: Required value/.test(err.message),
  );
});

test('the controller keeps spec.replicas pods it controls, scales through the scale subresource, and the GC deletes them with it', async () => {
  const labels = { app: 'web' };
  // an orphan that matches is adopted rather than a fourth pod created
  const orphan = await pods().create({ metadata: { name: 'orphan', labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  await rcs().create({ metadata: { name: 'web' }, spec: { replicas: 3, template: template(labels) } });
  await waitFor(async () => (await rcs().get('web')).status?.readyReplicas === 3, 'three ready replicas', 30_000);
  const rc = await rcs().get('web');
  assert.deepEqual(rc.status, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
  const owned = await podsOf('web');
  assert.equal(owned.length, 3);
  assert.ok(owned.some((p) => p.metadata?.name === orphan.metadata?.name), 'the orphan was adopted');
  for (const p of owned) {
    assert.deepEqual(p.metadata?.ownerReferences, [
      { apiVersion: 'v1', kind: 'ReplicationController', name: 'web', uid: rc.metadata?.uid, controller: true, blockOwnerDeletion: true },
    ]);
  }
  for (const p of owned.filter((x) => x.metadata?.name !== 'orphan')) assert.match(p.metadata?.name ?? '', /^web-[a-z0-9]{5}$/);

  const scale = await rcs().getSubresource<{ spec: { replicas: number }; status: { replicas: number; selector: string } }>('web', 'scale');
  assert.deepEqual([scale.spec.replicas, scale.status.replicas, scale.status.selector], [3, 3, 'app=web']);
  await rcs().patch('web', { spec: { replicas: 1 } }, 'merge', { subresource: 'scale' });
  await waitFor(async () => (await podsOf('web')).length === 1 && (await rcs().get('web')).status?.replicas === 1, 'scaled to one pod', 30_000);
  assert.equal((await rcs().get('web')).metadata?.generation, 2);

  await rcs().delete('web');
  await waitFor(async () => (await pods().list({ labelSelector: 'app=web' })).items.length === 0, 'pods collected with their controller', 30_000);
});
