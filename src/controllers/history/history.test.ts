import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { fnv32a, revisionHash, safeEncode, stableStringify } from './revision-hash.js';
import { newControllerRevision, revisionsToTruncate, templateOfRevision } from './controller-revision.js';
import { PodExpectations } from './pod-expectations.js';
import { FakeClock } from '../../base/fake-clock.js';

test('FNV-1a and the safe encoding match upstream', () => {
  assert.equal(fnv32a(''), 0x811c9dc5);
  assert.equal(fnv32a('a'), 0xe40c292c);
  assert.equal(fnv32a('foobar'), 0xbf9cf968);
  assert.equal(safeEncode('0123456789'), '456789bcdf');
});

test('revision hashes ignore key order and change with the collision count', () => {
  assert.equal(stableStringify({ b: 1, a: [{ d: 2, c: 3 }] }), '{"a":[{"c":3,"d":2}],"b":1}');
  assert.equal(revisionHash({ a: 1, b: 2 }), revisionHash({ b: 2, a: 1 }));
  assert.notEqual(revisionHash({ a: 1 }), revisionHash({ a: 1 }, 1));
  assert.match(revisionHash({ a: 1 }), /^[bcdfghjklmnpqrstvwxz2456789]+$/);
});

test('controller revisions: name, labels, data round trip, truncation spares live revisions', () => {
  const owner = { metadata: { name: 'web', namespace: 'ns' }, spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'v1' }] } } } };
  const rev = newControllerRevision(owner, { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true }, 1);
  const hash = rev.metadata?.labels?.['controller-revision-hash'];
  assert.equal(rev.metadata?.name, `web-${hash}`);
  assert.equal(rev.metadata?.labels?.app, 'web');
  assert.deepEqual(templateOfRevision(rev), owner.spec.template);
  const revs: ControllerRevision[] = [1, 2, 3, 4, 5].map((n) => ({ metadata: { name: `r${n}` }, revision: n }));
  assert.deepEqual(revisionsToTruncate(revs, new Set(['r5', 'r1']), 2).map((r) => r.metadata?.name), ['r2']);
  assert.deepEqual(revisionsToTruncate(revs, new Set(['r5']), 10), []);
});

test('pod expectations hold until the cache shows the writes, or expire', () => {
  const clock = new FakeClock(0);
  const e = new PodExpectations(clock);
  const cache = new Map<string, 'present' | 'deleting'>();
  const state = (n: string) => cache.get(n) ?? 'absent';
  assert.equal(e.satisfied('a/x', state), true);
  e.expectCreate('a/x', 'p1');
  e.expectDelete('a/x', 'p2');
  cache.set('p2', 'present');
  assert.equal(e.satisfied('a/x', state), false);
  cache.set('p1', 'present');
  assert.equal(e.satisfied('a/x', state), false, 'p2 still shows as present');
  cache.set('p2', 'deleting');
  assert.equal(e.satisfied('a/x', state), true);
  e.expectCreate('a/x', 'lost');
  clock.set(clock.now() + 5 * 60_000 + 1);
  assert.equal(e.satisfied('a/x', state), true, 'expired');
});
