import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messagesFor, updateMessagesFor } from './test-support.js';

const cm = (metadata: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata });

test('name is required unless generated', () => {
  assert.deepEqual(messagesFor(cm({ namespace: 'default' })), ['metadata.name: Required value: name or generateName is required']);
});

test('name and namespace formats', () => {
  const msgs = messagesFor(cm({ name: 'Bad_Name', namespace: 'my.ns' }));
  assert.equal(msgs.length, 2);
  assert.match(msgs[0], /^metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/);
  assert.equal(msgs[1], 'metadata.namespace: Invalid value: "my.ns": must not contain dots');
});

test('cluster-scoped kinds reject a namespace', () => {
  assert.deepEqual(messagesFor({ kind: 'Namespace', metadata: { name: 'x', namespace: 'y' } }), ['metadata.namespace: Forbidden: not allowed on this type']);
});

test('labels are reported on the map path', () => {
  const msgs = messagesFor(cm({ name: 'a', namespace: 'd', labels: { 'app': 'x'.repeat(64) } }));
  assert.equal(msgs.length, 1);
  assert.match(msgs[0], /^metadata\.labels: Invalid value: "x{64}": must be no more than 63 characters/);
});

test('annotations total size is limited to 256 KiB', () => {
  const msgs = messagesFor(cm({ name: 'a', namespace: 'd', annotations: { big: 'x'.repeat(256 * 1024) } }));
  assert.deepEqual(msgs, ['metadata.annotations: Too long: may not be more than 262144 bytes']);
});

test('owner references need apiVersion, kind, name and uid', () => {
  const msgs = messagesFor(cm({ name: 'a', namespace: 'd', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] }));
  assert.deepEqual(msgs, [
    'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
    'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
    'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
    'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
  ]);
});

test('identity fields are immutable on update', () => {
  const old = cm({ name: 'a', namespace: 'd', uid: 'u1', resourceVersion: '5', creationTimestamp: '2024-01-01T00:00:00Z' });
  const next = cm({ name: 'a', namespace: 'd', uid: 'u2', resourceVersion: '5', creationTimestamp: '2024-01-02T00:00:00Z' });
  assert.deepEqual(updateMessagesFor(next, old), [
    'metadata.uid: Invalid value: "u2": field is immutable',
    'metadata.creationTimestamp: Invalid value: "2024-01-02T00:00:00Z": field is immutable',
  ]);
  assert.deepEqual(updateMessagesFor(cm({ name: 'a', namespace: 'd' }), old).slice(0, 1), [
    'metadata.resourceVersion: Invalid value: "": must be specified for an update',
  ]);
});
