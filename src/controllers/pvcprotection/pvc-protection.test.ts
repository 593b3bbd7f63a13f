import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { Lister } from '../../client/cache/lister.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { TestObjects } from '../../testing/objects.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { PERSISTENT_VOLUMES, PERSISTENT_VOLUME_CLAIMS, PODS } from '../../api/resource-refs.js';
import { PvProtectionReconciler } from '../pvprotection/pv-protection-reconciler.js';
import { PvcProtectionReconciler, podUsesClaim } from './pvc-protection-reconciler.js';

let api: TestApiServer;
let objects: TestObjects;
const claimIndex = new MapIndexer<PersistentVolumeClaim>();
const podIndex = new MapIndexer<Pod>();
const volumeIndex = new MapIndexer<PersistentVolume>();
const signal = new AbortController().signal;

beforeEach(async () => {
  api = await startTestApiServer({ namespaces: ['app'] });
  objects = new TestObjects(api.client);
});
afterEach(() => api.stop());

/** Mirrors the server into the listers, as informers would. */
async function sync(): Promise<void> {
  claimIndex.replace(await objects.list<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS), '');
  podIndex.replace(await objects.list<Pod>(PODS), '');
  volumeIndex.replace(await objects.list<PersistentVolume>(PERSISTENT_VOLUMES), '');
}

const claims = () => api.client.resource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS).namespace('app');
const pods = () => api.client.resource<Pod>(PODS).namespace('app');

async function claimOrGone(name: string): Promise<PersistentVolumeClaim | undefined> {
  try {
    return await claims().get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const newClaim = (name: string): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'app' },
  spec: { storageClassName: '', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});

const podUsing = (name: string, claim: string, nodeName?: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'app' },
  spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] },
});

test('a claim in use stays Terminating until its pod is gone, then the finalizer goes and so does the claim', async () => {
  const reconciler = new PvcProtectionReconciler({ client: api.client, claims: new Lister(claimIndex), pods: new Lister(podIndex) });
  const created = await claims().create(newClaim('data'));
  assert.deepEqual(created.metadata?.finalizers, ['kubernetes.io/pvc-protection'], 'the admission plugin protects every new claim');
  await pods().create(podUsing('db', 'data', 'node-1'));
  await pods().create(podUsing('unscheduled', 'data'));

  await claims().delete('data');
  await sync();
  await reconciler.reconcile('app/data', signal);
  const terminating = await claimOrGone('data');
  assert.ok(terminating?.metadata?.deletionTimestamp, 'the claim is Terminating');
  assert.deepEqual(terminating?.metadata?.finalizers, ['kubernetes.io/pvc-protection'], 'kept while the scheduled pod db uses it');

  // a pod the cache has not seen yet still counts (the live list)
  await pods().delete('db', { gracePeriodSeconds: 0 });
  await pods().create(podUsing('late', 'data', 'node-1'));
  await sync();
  podIndex.replace(podIndex.list().filter((p) => p.metadata?.name !== 'late'), '');
  await reconciler.reconcile('app/data', signal);
  assert.ok(await claimOrGone('data'), 'kept for the pod only the server knows');

  await pods().delete('late', { gracePeriodSeconds: 0 });
  await sync();
  await reconciler.reconcile('app/data', signal);
  assert.equal(await claimOrGone('data'), undefined, 'an unscheduled pod does not hold the claim: it is deleted');
});

test('a claim that predates the admission plugin gets the finalizer; an unprotected deleted claim is left alone', async () => {
  const reconciler = new PvcProtectionReconciler({ client: api.client, claims: new Lister(claimIndex), pods: new Lister(podIndex) });
  const created = await claims().create(newClaim('old'));
  await claims().update({ ...created, metadata: { ...created.metadata, finalizers: [] } });
  await sync();
  await reconciler.reconcile('app/old', signal);
  assert.deepEqual((await claims().get('old')).metadata?.finalizers, ['kubernetes.io/pvc-protection']);
  await reconciler.reconcile('app/missing', signal);
});

test('which pods use a claim: scheduled ones naming it; ephemeral claims only for their own pod until it is shut down', () => {
  const pvc = (name: string, ownerUid?: string): PersistentVolumeClaim => ({ metadata: { name, namespace: 'app', ownerReferences: ownerUid ? [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: ownerUid, controller: true }] : undefined } });
  assert.equal(podUsesClaim(podUsing('p', 'data', 'n'), pvc('data')), true);
  assert.equal(podUsesClaim(podUsing('p', 'data'), pvc('data')), false);
  assert.equal(podUsesClaim(podUsing('p', 'other', 'n'), pvc('data')), false);
  assert.equal(podUsesClaim({ ...podUsing('p', 'data', 'n'), metadata: { name: 'p', namespace: 'elsewhere' } }, pvc('data')), false);
  const eph: Pod = { metadata: { name: 'p', namespace: 'app', uid: 'u1' }, spec: { nodeName: 'n', containers: [], volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } }] } };
  assert.equal(podUsesClaim(eph, pvc('p-scratch', 'u1')), true);
  assert.equal(podUsesClaim(eph, pvc('p-scratch', 'someone-else')), false);
  const shutDown = { ...eph, metadata: { ...eph.metadata, deletionTimestamp: '2024-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 } };
  assert.equal(podUsesClaim(shutDown, pvc('p-scratch', 'u1')), false);
});

test('pv-protection: a Bound volume keeps its finalizer when deleted; once not Bound it goes', async () => {
  const reconciler = new PvProtectionReconciler({ client: api.client, volumes: new Lister(volumeIndex) });
  const volumes = api.client.resource<PersistentVolume>(PERSISTENT_VOLUMES);
  const pv = await volumes.create({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } });
  assert.deepEqual(pv.metadata?.finalizers, ['kubernetes.io/pv-protection']);
  await volumes.updateStatus({ ...pv, status: { phase: 'Bound' } });
  await volumes.delete('pv1');
  await sync();
  await reconciler.reconcile('pv1', signal);
  const held = await volumes.get('pv1');
  assert.ok(held.metadata?.deletionTimestamp);
  assert.deepEqual(held.metadata?.finalizers, ['kubernetes.io/pv-protection']);
  await volumes.updateStatus({ ...held, status: { phase: 'Released' } });
  await sync();
  await reconciler.reconcile('pv1', signal);
  await assert.rejects(volumes.get('pv1'), (err: unknown) => isNotFound(err));
});
