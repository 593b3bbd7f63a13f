import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import type { Event, Node, PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { Lister } from '../../client/cache/lister.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { EventRecorder } from '../../client/events/event-recorder.js';
import { TestObjects } from '../../testing/objects.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { EVENTS, NODES, PERSISTENT_VOLUMES, PERSISTENT_VOLUME_CLAIMS, STORAGE_CLASSES } from '../../api/resource-refs.js';
import { CLAIM_KEY, LOCAL_PATH_PROVISIONER, LocalPathProvisioner } from './local-path-provisioner.js';

let api: TestApiServer;
let objects: TestObjects;
let recorder: EventRecorder;
let provisioner: LocalPathProvisioner;
const claims = new MapIndexer<PersistentVolumeClaim>();
const volumes = new MapIndexer<PersistentVolume>();
const classes = new MapIndexer<StorageClass>();
const pods = new MapIndexer<Pod>();
const nodes = new MapIndexer<Node>();

beforeEach(async () => {
  api = await startTestApiServer({ namespaces: ['app'] });
  objects = new TestObjects(api.client);
  recorder = new EventRecorder({ client: api.client, component: LOCAL_PATH_PROVISIONER });
  provisioner = new LocalPathProvisioner({
    client: api.client,
    claims: new Lister(claims),
    volumes: new Lister(volumes),
    classes: new Lister(classes),
    pods: new Lister(pods),
    nodes: new Lister(nodes),
    recorder,
    dir: '/var/lib/skiff/storage',
    helperImage: 'busybox',
  });
  await objects.put<Node>(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { capacity: { 'ephemeral-storage': '10Gi' } } });
});
afterEach(async () => {
  await recorder.stop();
  await api.stop();
});

async function sync(): Promise<void> {
  claims.replace(await objects.list<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS), '');
  volumes.replace(await objects.list<PersistentVolume>(PERSISTENT_VOLUMES), '');
  classes.replace(await objects.list<StorageClass>(STORAGE_CLASSES), '');
  nodes.replace(await objects.list<Node>(NODES), '');
}

const storageClass = (name: string, parameters?: Record<string, string>): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner: LOCAL_PATH_PROVISIONER,
  volumeBindingMode: 'WaitForFirstConsumer',
  parameters,
});

/** A claim as the binder and the scheduler leave it: handed to the provisioner, a node selected. */
const handedOver = (name: string, className: string, storage: string): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'app', annotations: { 'volume.kubernetes.io/storage-provisioner': LOCAL_PATH_PROVISIONER, 'volume.kubernetes.io/selected-node': 'n1' } },
  spec: { storageClassName: className, accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
});

async function provision(name: string): Promise<{ events: Event[]; volumes: PersistentVolume[] }> {
  await sync();
  await provisioner.reconcile(`${CLAIM_KEY}app/${name}`);
  await recorder.flush();
  const events = (await objects.list<Event>(EVENTS)).filter((e) => e.involvedObject.name === name);
  return { events, volumes: await objects.list<PersistentVolume>(PERSISTENT_VOLUMES) };
}

test('a class with parameters the provisioner does not know: ProvisioningFailed, no volume', async () => {
  await objects.put(STORAGE_CLASSES, storageClass('odd', { nodePath: '/mnt', fsType: 'ext4' }));
  await objects.put(PERSISTENT_VOLUME_CLAIMS, handedOver('data', 'odd', '1Gi'));
  const { events, volumes: made } = await provision('data');
  assert.equal(made.length, 0);
  const failed = events.find((e) => e.reason === 'ProvisioningFailed');
  assert.equal(failed?.type, 'Warning');
  assert.equal(failed?.message, 'failed to provision volume with StorageClass "odd": unsupported parameter "fsType", "nodePath": the built-in local-path provisioner takes no parameters');
});

test('a claim bigger than the node\'s disk: ProvisioningFailed; one that fits is provisioned on the node', async () => {
  await objects.put(STORAGE_CLASSES, storageClass('local'));
  await objects.put(PERSISTENT_VOLUME_CLAIMS, handedOver('huge', 'local', '1Ti'));
  const huge = await provision('huge');
  assert.equal(huge.volumes.length, 0);
  assert.equal(huge.events.find((e) => e.reason === 'ProvisioningFailed')?.message, 'failed to provision volume with StorageClass "local": requested storage 1Ti is more than node "n1" has (ephemeral-storage capacity 10Gi)');

  const fits = await objects.put(PERSISTENT_VOLUME_CLAIMS, handedOver('fits', 'local', '1Gi'));
  const ok = await provision('fits');
  assert.deepEqual(ok.volumes.map((v) => v.metadata?.name), [`pvc-${fits.metadata?.uid}`]);
  assert.equal(ok.volumes[0]?.spec?.hostPath?.path, `/var/lib/skiff/storage/pvc-${fits.metadata?.uid}_app_fits`);
  assert.ok(ok.events.some((e) => e.reason === 'ProvisioningSucceeded'));
});
