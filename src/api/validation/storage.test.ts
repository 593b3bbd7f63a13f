import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messagesFor, updateMessagesFor } from './test-support.js';

const sc = (fields: Record<string, unknown>, rv?: string) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'fast', ...(rv ? { resourceVersion: rv } : {}) },
  ...fields,
});

test('a defaulted StorageClass is valid; defaults are Delete and Immediate', () => {
  assert.deepEqual(messagesFor(sc({ provisioner: 'rancher.io/local-path' }), 'storage.k8s.io'), []);
});

test('StorageClass provisioner, reclaimPolicy and volumeBindingMode are checked as upstream', () => {
  assert.deepEqual(messagesFor(sc({ provisioner: '', reclaimPolicy: 'Recycle', volumeBindingMode: 'Later' }), 'storage.k8s.io'), [
    'provisioner: Required value',
    'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
    'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
  ]);
});

test('StorageClass parameters, provisioner and reclaimPolicy cannot change', () => {
  const old = sc({ provisioner: 'a.io/x', parameters: { k: 'v' } }, '1');
  const next = sc({ provisioner: 'b.io/x', parameters: { k: 'w' }, reclaimPolicy: 'Retain' }, '1');
  assert.deepEqual(updateMessagesFor(next, old, 'storage.k8s.io'), [
    'parameters: Forbidden: updates to parameters are forbidden.',
    'provisioner: Forbidden: updates to provisioner are forbidden.',
    'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
  ]);
});

test('VolumeAttachment needs exactly one source and a node', () => {
  const va = { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va' }, spec: { attacher: 'csi.example.com', source: {} } };
  assert.deepEqual(messagesFor(va, 'storage.k8s.io'), ['spec.source: Invalid value: {}: must specify exactly one of inlineVolumeSpec and persistentVolumeName', 'spec.nodeName: Required value']);
});

test('CSIDriver names follow the CSI driver name rules', () => {
  const d = { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: '-bad' }, spec: {} };
  assert.deepEqual(messagesFor(d, 'storage.k8s.io'), [
    'metadata.name: Invalid value: "-bad": must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character',
  ]);
});
