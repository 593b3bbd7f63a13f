import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { KubeObject } from '../../api/object.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes } from './admission.js';
import { DefaultStorageClass } from './default-storage-class.js';

const cls = (name: string, isDefault: boolean, created = '2024-01-01T00:00:00Z'): StorageClass => ({
  provisioner: 'rancher.io/local-path',
  metadata: { name, creationTimestamp: created, annotations: isDefault ? { 'storageclass.kubernetes.io/is-default-class': 'true' } : {} },
});

async function admitted(classes: StorageClass[], spec: PersistentVolumeClaim['spec'], annotations?: Record<string, string>): Promise<PersistentVolumeClaim> {
  const store = { list: async () => ({ items: classes as unknown as KubeObject[] }) } as unknown as RegistryStore;
  const object = { metadata: { name: 'c', namespace: 'app', annotations }, spec } as KubeObject;
  const attrs = {
    operation: 'CREATE', kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' }, resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
    subresource: '', namespace: 'app', name: 'c', object, dryRun: false, user: { name: 'jane', groups: [] },
  } as AdmissionAttributes;
  await new DefaultStorageClass(() => store).admit(attrs);
  return attrs.object as PersistentVolumeClaim;
}

test('a claim without a class gets the newest default class', async () => {
  const pvc = await admitted([cls('slow', false), cls('old', true), cls('new', true, '2025-01-01T00:00:00Z')], { accessModes: ['ReadWriteOnce'] });
  assert.equal(pvc.spec?.storageClassName, 'new');
});

test('an explicit class, even "", or the beta annotation is kept; no default leaves the claim alone', async () => {
  assert.equal((await admitted([cls('d', true)], { storageClassName: '' })).spec?.storageClassName, '');
  assert.equal((await admitted([cls('d', true)], {}, { 'volume.beta.kubernetes.io/storage-class': 'x' })).spec?.storageClassName, undefined);
  assert.equal((await admitted([cls('d', false)], {})).spec?.storageClassName, undefined);
});
