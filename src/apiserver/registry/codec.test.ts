import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeObject, encodedJson, encodeObject } from './codec.js';

const kv = (value: Uint8Array, modRevision = 7) => ({ key: '/registry/pods/a/b', value, createRevision: 3, modRevision });

test('round-trips an object and sets resourceVersion from the revision', () => {
  const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b', namespace: 'a', resourceVersion: '1' }, spec: { x: 1 } };
  const stored = encodeObject(obj);
  assert.doesNotMatch(Buffer.from(stored).toString(), /resourceVersion/);
  assert.deepEqual(decodeObject(kv(stored)), { ...obj, metadata: { ...obj.metadata, resourceVersion: '7' } });
});

test('splices resourceVersion into the stored JSON without changing anything else', () => {
  const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b', labels: { 'x"y': 'z' } }, spec: { metadata: { fake: true } } };
  const json = encodedJson(kv(encodeObject(obj)), 42);
  assert.deepEqual(JSON.parse(json), { ...obj, metadata: { ...obj.metadata, resourceVersion: '42' } });
});

test('falls back to parsing values stored in another layout', () => {
  const legacy = Buffer.from(JSON.stringify({ kind: 'Pod', metadata: {} }));
  assert.deepEqual(JSON.parse(encodedJson(kv(legacy), 5)), { kind: 'Pod', metadata: { resourceVersion: '5' } });
});
