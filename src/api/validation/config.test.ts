import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messagesFor, updateMessagesFor } from './test-support.js';

const meta = { name: 'c', namespace: 'default', resourceVersion: '1' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

test('config keys', () => {
  assert.deepEqual(messagesFor({ kind: 'ConfigMap', metadata: meta, data: { 'bad key': 'x' } }), [
    "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
  ]);
});

test('configmaps are limited to 1 MiB', () => {
  assert.deepEqual(messagesFor({ kind: 'ConfigMap', metadata: meta, data: { a: 'x'.repeat(1024 * 1024 + 1) } }), [': Too long: may not be more than 1048576 bytes']);
});

test('immutable configmaps and secrets reject data changes', () => {
  const old = { kind: 'ConfigMap', metadata: meta, immutable: true, data: { a: '1' } };
  assert.deepEqual(updateMessagesFor({ ...old, data: { a: '2' } }, old), ['data: Forbidden: field is immutable when `immutable` is set']);
  assert.deepEqual(updateMessagesFor({ ...old, immutable: false }, old), ['immutable: Forbidden: field is immutable when `immutable` is set']);
});

test('secret type is immutable and type-specific keys are required', () => {
  assert.deepEqual(messagesFor({ kind: 'Secret', metadata: meta, type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c') } }), ['data[tls.key]: Required value']);
  assert.deepEqual(messagesFor({ kind: 'Secret', metadata: meta, type: 'kubernetes.io/dockerconfigjson', data: {} }), ['data[.dockerconfigjson]: Required value']);
  const old = { kind: 'Secret', metadata: meta, data: {} };
  assert.deepEqual(updateMessagesFor({ ...old, type: 'kubernetes.io/basic-auth', data: { username: b64('u') } }, old), [
    'type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
  ]);
});

test('stringData folds into data before validation', () => {
  assert.deepEqual(messagesFor({ kind: 'Secret', metadata: meta, type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'c', 'tls.key': 'k' } }), []);
});
