import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DECODED_VALUES, decodeObject, decodeShared, encodedJson, encodedJsonBytes, encodeObject } from './codec.js';

const kv = (value: Uint8Array, modRevision = 7) => ({ key: '/registry/pods/a/b', value, createRevision: 3, modRevision });

test('stores the Go form and sets resourceVersion from the revision on read', () => {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'a', resourceVersion: '1', finalizers: [] }, data: { k: 'v' } };
  const stored = Buffer.from(encodeObject(obj)).toString();
  assert.equal(stored, '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","namespace":"a","resourceVersion":"0","creationTimestamp":null},"data":{"k":"v"}}');
  assert.deepEqual(decodeObject(kv(encodeObject(obj))), {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'b', namespace: 'a', resourceVersion: '7', creationTimestamp: null },
    data: { k: 'v' },
  });
});

test('splices resourceVersion into the stored JSON without changing anything else', () => {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', labels: { 'x"y': 'z' }, annotations: { resourceVersion: '0' } }, data: { resourceVersion: '0' } };
  const json = encodedJson(kv(encodeObject(obj)), 42);
  assert.equal(json, '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","resourceVersion":"42","creationTimestamp":null,"labels":{"x\\"y":"z"},"annotations":{"resourceVersion":"0"}},"data":{"resourceVersion":"0"}}');
});

test('kinds without a Go layout keep their fields, after kind, apiVersion and metadata in ObjectMeta order', () => {
  const obj = { spec: { ref: { resourceVersion: '0' } }, apiVersion: 'example.com/v1', kind: 'Widget', metadata: { annotations: { resourceVersion: '0' }, name: 'w' } };
  const json = encodedJson(kv(encodeObject(obj)), 9);
  assert.equal(json, '{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w","resourceVersion":"9","creationTimestamp":null,"annotations":{"resourceVersion":"0"}},"spec":{"ref":{"resourceVersion":"0"}}}');
});

test('escapes HTML characters as Go does', () => {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { html: '<a href="x">&</a>' } };
  assert.match(encodedJson(kv(encodeObject(obj)), 3), /"html":"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c\/a\\u003e"/);
});

test('falls back to parsing values stored in the earlier layout', () => {
  const legacy = Buffer.from(JSON.stringify({ metadata: { name: 'x', resourceVersion: '0' }, kind: 'Pod' }));
  assert.deepEqual(JSON.parse(encodedJson(kv(legacy), 5)), { metadata: { name: 'x', resourceVersion: '5' }, kind: 'Pod' });
});

test('the list form as bytes is encodedJson', () => {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'a' }, data: { html: '<é>', resourceVersion: '0' } };
  const stored = kv(encodeObject(obj), 9);
  const bytes = encodedJsonBytes(stored);
  assert.equal(bytes.toString('utf8'), encodedJson(stored));
  const moved = kv(encodeObject(obj), 10);
  assert.match(encodedJsonBytes(moved).toString('utf8'), /"resourceVersion":"10"/, 'another KeyValue (a new revision) gets its own');
  const legacy = kv(Buffer.from(JSON.stringify({ metadata: { name: 'x', resourceVersion: '0' }, kind: 'Pod' })), 5);
  assert.equal(encodedJsonBytes(legacy).toString('utf8'), encodedJson(legacy));
});

test('decodeShared: one object per stored value while it is recent, parsed again once DECODED_VALUES later writes have pushed it out', () => {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'a' }, data: { k: 'v' } };
  const stored = kv(encodeObject(obj), 9);
  const first = decodeShared(stored);
  assert.equal(decodeShared({ ...stored }), first, 'another KeyValue around the same bytes shares the object');
  const deleted = decodeShared(stored, 12);
  assert.equal(deleted.metadata?.resourceVersion, '12');
  assert.equal(deleted.data, first.data, 'a value read at another revision shares all but metadata');
  for (let i = 0; i < DECODED_VALUES; i++) decodeShared(kv(encodeObject({ ...obj, metadata: { name: `o${i}` } }), 20 + i));
  const again = decodeShared(stored);
  assert.notEqual(again, first);
  assert.deepEqual(again, first);
});
