import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { MapIndexer, UnknownIndexError } from './map-indexer.js';
import { NAMESPACE_INDEX } from './indexer.js';
import { metaNamespaceKey, splitMetaNamespaceKey } from './store.js';
import { Lister } from './lister.js';

const pod = (ns: string, name: string, node = '', labels: Record<string, string> = {}): Pod => ({ metadata: { namespace: ns, name, labels }, spec: { nodeName: node, containers: [] } });

test('keys, namespace index, custom index, update and delete keep indexes right', () => {
  assert.equal(metaNamespaceKey(pod('a', 'b')), 'a/b');
  assert.equal(metaNamespaceKey({ metadata: { name: 'n1' } }), 'n1');
  assert.deepEqual(splitMetaNamespaceKey('a/b'), { namespace: 'a', name: 'b' });
  const idx = new MapIndexer<Pod>();
  idx.addIndexers({ node: (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []) });
  idx.add(pod('a', 'p1', 'n1'));
  idx.add(pod('a', 'p2', 'n2'));
  idx.add(pod('b', 'p3', 'n1'));
  assert.deepEqual(idx.byIndex(NAMESPACE_INDEX, 'a').map(metaNamespaceKey).sort(), ['a/p1', 'a/p2']);
  assert.deepEqual(idx.indexKeys('node', 'n1').sort(), ['a/p1', 'b/p3']);
  idx.update(pod('a', 'p1', 'n2'));
  assert.deepEqual(idx.indexKeys('node', 'n1'), ['b/p3']);
  assert.deepEqual(idx.index('node', pod('x', 'y', 'n2')).map(metaNamespaceKey).sort(), ['a/p1', 'a/p2']);
  idx.delete(pod('b', 'p3'));
  assert.deepEqual(idx.listIndexFuncValues('node'), ['n2']);
  assert.throws(() => idx.byIndex('nope', 'x'), UnknownIndexError);
  assert.throws(() => idx.addIndexers({ node: () => [] }), RangeError);
  idx.replace([pod('c', 'q', 'n3')], '42');
  assert.deepEqual(idx.listKeys(), ['c/q']);
  assert.deepEqual(idx.listIndexFuncValues('node'), ['n3']);
  assert.equal(idx.resourceVersion, '42');
});

test('an index added later covers existing objects; listers filter by namespace and labels', () => {
  const idx = new MapIndexer<Pod>();
  idx.add(pod('a', 'p1', '', { app: 'web' }));
  idx.add(pod('a', 'p2', '', { app: 'db' }));
  idx.add(pod('b', 'p3', '', { app: 'web' }));
  idx.addIndexers({ app: (p) => [p.metadata?.labels?.app ?? ''] });
  assert.deepEqual(idx.indexKeys('app', 'web').sort(), ['a/p1', 'b/p3']);
  const lister = new Lister(idx);
  assert.equal(lister.list({ app: 'web' }).length, 2);
  assert.deepEqual(lister.namespace('a').list({ app: 'web' }).map((p) => p.metadata?.name), ['p1']);
  assert.equal(lister.namespace('a').get('p2')?.metadata?.name, 'p2');
  assert.equal(lister.namespace('b').get('p2'), undefined);
  assert.equal(lister.list((l) => l.app !== 'web').length, 1);
});
