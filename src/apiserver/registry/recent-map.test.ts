import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecentMap } from './recent-map.js';

test('keeps the keys added last; setting a held key again neither evicts nor refreshes it', () => {
  const m = new RecentMap<string, number>(3);
  for (const [k, v] of [['a', 1], ['b', 2], ['c', 3]] as const) m.set(k, v);
  m.set('a', 10);
  assert.equal(m.size, 3);
  assert.equal(m.get('a'), 10);
  m.set('d', 4);
  assert.deepEqual(['a', 'b', 'c', 'd'].map((k) => m.get(k)), [undefined, 2, 3, 4]);
  m.set('e', 5);
  m.set('a', 1);
  assert.deepEqual(['a', 'b', 'c', 'd', 'e'].map((k) => m.get(k)), [1, undefined, undefined, 4, 5]);
  assert.equal(m.size, 3);
});
