import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { findMatchingVolume } from './volume-binding.js';

const pv = (name: string, size: string, o: { cls?: string; modes?: string[]; phase?: string; claim?: { name: string; uid?: string }; labels?: Record<string, string>; node?: string } = {}): PersistentVolume =>
  ({
    metadata: { name, labels: o.labels },
    spec: {
      capacity: { storage: size },
      accessModes: o.modes ?? ['ReadWriteOnce'],
      storageClassName: o.cls ?? '',
      ...(o.claim ? { claimRef: { namespace: 'ns', name: o.claim.name, uid: o.claim.uid } } : {}),
      ...(o.node ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [o.node] }] }] } } } : {}),
    },
    status: { phase: o.phase ?? 'Available' },
  }) as PersistentVolume;

const pvc = (size: string, o: { cls?: string; modes?: string[]; selector?: Record<string, string> } = {}): PersistentVolumeClaim => ({
  metadata: { name: 'data', namespace: 'ns', uid: 'u1' },
  spec: { accessModes: o.modes ?? ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: o.cls, ...(o.selector ? { selector: { matchLabels: o.selector } } : {}) },
});

const node = (name: string): Node => ({ metadata: { name, labels: { 'kubernetes.io/hostname': name } } });
const names = (v: PersistentVolume | undefined) => v?.metadata?.name;

test('the smallest Available volume of the class that is big enough and offers the modes wins', () => {
  const vols = [pv('big', '10Gi'), pv('small', '1Gi'), pv('tiny', '100Mi'), pv('rwx', '2Gi', { modes: ['ReadWriteMany'] }), pv('other', '1Gi', { cls: 'fast' }), pv('bound', '1Gi', { phase: 'Bound', claim: { name: 'x', uid: 'z' } })];
  assert.equal(names(findMatchingVolume(pvc('500Mi'), vols, { delayBinding: false })), 'small');
  assert.equal(names(findMatchingVolume(pvc('500Mi', { cls: 'fast' }), vols, { delayBinding: false })), 'other');
  assert.equal(names(findMatchingVolume(pvc('20Gi'), vols, { delayBinding: false })), undefined);
  assert.equal(names(findMatchingVolume(pvc('1Gi', { modes: ['ReadWriteMany'] }), vols, { delayBinding: false })), 'rwx');
});

test('a selector narrows the candidates; a volume pre-bound to the claim wins over better fits', () => {
  const vols = [pv('a', '1Gi', { labels: { tier: 'gold' } }), pv('b', '1Gi'), pv('mine', '5Gi', { claim: { name: 'data' }, phase: 'Available' })];
  assert.equal(names(findMatchingVolume(pvc('1Gi'), vols, { delayBinding: false })), 'mine');
  assert.equal(names(findMatchingVolume(pvc('1Gi', { selector: { tier: 'gold' } }), vols.slice(0, 2), { delayBinding: false })), 'a');
});

test('late binding: without a node only pre-bound volumes match; with one, its node affinity must admit the node', () => {
  const vols = [pv('n1', '1Gi', { node: 'n1' }), pv('n2', '1Gi', { node: 'n2' })];
  assert.equal(names(findMatchingVolume(pvc('1Gi'), vols, { delayBinding: true })), undefined);
  assert.equal(names(findMatchingVolume(pvc('1Gi'), vols, { delayBinding: true, node: node('n2') })), 'n2');
  assert.equal(names(findMatchingVolume(pvc('1Gi'), vols, { delayBinding: true, node: node('n3') })), undefined);
  assert.equal(names(findMatchingVolume(pvc('1Gi'), vols, { delayBinding: true, node: node('n2'), exclude: new Set(['n2']) })), undefined);
});
