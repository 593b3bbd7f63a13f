import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import type { Event, PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { Lister } from '../../client/cache/lister.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { EventRecorder } from '../../client/events/event-recorder.js';
import { TestObjects } from '../../testing/objects.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { EVENTS, PERSISTENT_VOLUMES, PERSISTENT_VOLUME_CLAIMS, STORAGE_CLASSES } from '../../api/resource-refs.js';
import { CLAIM_KEY, PersistentVolumeBinder } from './pv-binder.js';

let api: TestApiServer;
let objects: TestObjects;
let recorder: EventRecorder;
let binder: PersistentVolumeBinder;
const claims = new MapIndexer<PersistentVolumeClaim>();
const volumes = new MapIndexer<PersistentVolume>();
const classes = new MapIndexer<StorageClass>();

beforeEach(async () => {
  api = await startTestApiServer({ namespaces: ['app'] });
  objects = new TestObjects(api.client);
  recorder = new EventRecorder({ client: api.client, component: 'persistentvolume-controller' });
  binder = new PersistentVolumeBinder({ client: api.client, claims: new Lister(claims), volumes: new Lister(volumes), classes: new Lister(classes), recorder });
});
afterEach(async () => {
  await recorder.stop();
  await api.stop();
});

async function syncClaim(name: string): Promise<{ claim: PersistentVolumeClaim; events: Event[] }> {
  claims.replace(await objects.list<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS), '');
  volumes.replace(await objects.list<PersistentVolume>(PERSISTENT_VOLUMES), '');
  classes.replace(await objects.list<StorageClass>(STORAGE_CLASSES), '');
  await binder.reconcile(`${CLAIM_KEY}app/${name}`);
  await recorder.flush();
  const claim = await api.client.resource<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS).namespace('app').get(name);
  return { claim, events: (await objects.list<Event>(EVENTS)).filter((e) => e.involvedObject.name === name) };
}

test('a claim for a class that does not exist stays Pending with ProvisioningFailed; once the class exists it is handed to its provisioner', async () => {
  await objects.put(PERSISTENT_VOLUME_CLAIMS, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data', namespace: 'app' },
    spec: { storageClassName: 'fast', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  } as PersistentVolumeClaim);
  const missing = await syncClaim('data');
  assert.equal(missing.claim.status?.phase, 'Pending');
  const failed = missing.events.find((e) => e.reason === 'ProvisioningFailed');
  assert.equal(failed?.type, 'Warning');
  assert.equal(failed?.message, 'storageclass.storage.k8s.io "fast" not found');
  assert.equal(missing.claim.metadata?.annotations?.['volume.kubernetes.io/storage-provisioner'], undefined);

  await objects.put(STORAGE_CLASSES, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'example.com/fast' } as StorageClass);
  const handed = await syncClaim('data');
  assert.equal(handed.claim.metadata?.annotations?.['volume.kubernetes.io/storage-provisioner'], 'example.com/fast');
  assert.ok(handed.events.some((e) => e.reason === 'ExternalProvisioning'));
});
