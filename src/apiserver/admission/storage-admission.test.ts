import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { KubeObject } from '../../api/object.js';
import { ApiError } from '../../machinery/api-error.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes, Operation } from './admission.js';
import { PersistentVolumeClaimResize } from './persistent-volume-claim-resize.js';
import { StorageObjectInUseProtection } from './storage-object-in-use-protection.js';

const attrs = (operation: Operation, resource: string, object: object, oldObject?: object): AdmissionAttributes =>
  ({
    operation,
    kind: { group: '', version: 'v1', kind: 'x' },
    resource: { group: '', version: 'v1', resource },
    subresource: '',
    namespace: 'app',
    name: 'data',
    object: object as KubeObject,
    oldObject: oldObject as KubeObject | undefined,
    dryRun: false,
    user: { name: 'jane', groups: [] },
  }) as AdmissionAttributes;

test('StorageObjectInUseProtection: new claims and volumes get their protection finalizer once', async () => {
  const plugin = new StorageObjectInUseProtection();
  assert.equal(plugin.handles('CREATE'), true);
  assert.equal(plugin.handles('UPDATE'), false);
  const pvc = attrs('CREATE', 'persistentvolumeclaims', { metadata: { name: 'data', finalizers: ['example.com/keep'] } });
  await plugin.admit(pvc);
  assert.deepEqual(pvc.object?.metadata?.finalizers, ['example.com/keep', 'kubernetes.io/pvc-protection']);
  await plugin.admit(pvc);
  assert.deepEqual(pvc.object?.metadata?.finalizers, ['example.com/keep', 'kubernetes.io/pvc-protection'], 'not added twice');
  const pv = attrs('CREATE', 'persistentvolumes', { metadata: { name: 'pv1' } });
  await plugin.admit(pv);
  assert.deepEqual(pv.object?.metadata?.finalizers, ['kubernetes.io/pv-protection']);
  const pod = attrs('CREATE', 'pods', { metadata: { name: 'p' } });
  await plugin.admit(pod);
  assert.equal(pod.object?.metadata?.finalizers, undefined);
});

function classes(...list: StorageClass[]): RegistryStore {
  return {
    get: async (_ns: string, name: string) => {
      const sc = list.find((c) => c.metadata?.name === name);
      if (!sc) throw new ApiError(404, 'NotFound', `storageclasses.storage.k8s.io "${name}" not found`);
      return sc as unknown as KubeObject;
    },
  } as unknown as RegistryStore;
}

const claim = (storage: string, phase: string, className = 'fast'): PersistentVolumeClaim => ({
  metadata: { name: 'data', namespace: 'app' },
  spec: { storageClassName: className, accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
  status: { phase },
});

async function resize(store: RegistryStore, next: PersistentVolumeClaim, old: PersistentVolumeClaim): Promise<ApiError | undefined> {
  try {
    await new PersistentVolumeClaimResize(() => store).validate(attrs('UPDATE', 'persistentvolumeclaims', next, old));
    return undefined;
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err;
  }
}

test('PersistentVolumeClaimResize: growth needs a bound claim whose class allows expansion', async () => {
  const store = classes({ metadata: { name: 'fast' }, provisioner: 'p', allowVolumeExpansion: true }, { metadata: { name: 'fixed' }, provisioner: 'p' });
  assert.equal(await resize(store, claim('2Gi', 'Bound'), claim('1Gi', 'Bound')), undefined);
  assert.equal(await resize(store, claim('1Gi', 'Bound', 'fixed'), claim('1Gi', 'Bound', 'fixed')), undefined, 'an unchanged size is not a resize');
  assert.equal(await resize(store, claim('1Gi', 'Bound', 'fixed'), claim('2Gi', 'Bound', 'fixed')), undefined, 'coming down is left to validation');

  const pending = await resize(store, claim('2Gi', 'Pending'), claim('1Gi', 'Pending'));
  assert.equal(pending?.code, 403);
  assert.equal(pending?.message, 'persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded');

  const denied = 'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';
  assert.equal((await resize(store, claim('2Gi', 'Bound', 'fixed'), claim('1Gi', 'Bound', 'fixed')))?.message, denied);
  assert.equal((await resize(store, claim('2Gi', 'Bound', 'gone'), claim('1Gi', 'Bound', 'gone')))?.message, denied, 'a class that does not exist');
  assert.equal((await resize(store, claim('2Gi', 'Bound', ''), claim('1Gi', 'Bound', '')))?.message, denied, 'no class');
  assert.equal((await resize(store, claim('2Gi', 'Bound', 'fast'), claim('1Gi', 'Bound', 'fixed')))?.message, denied, 'a changed class');
});
