import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiClient } from './api-client.js';
import { WatchAuditor } from './watch-auditor.js';

test('a gap is an acknowledged write inside a watched stretch that was never delivered', () => {
  const w = new WatchAuditor('t', {} as ApiClient, '/x');
  w.segments.push({ from: 10, to: 20 }, { from: 30, to: 40 });
  w.seen.add('a@12');
  w.seen.add('b@35');
  const acks = [{ name: 'a', rv: 12 }, { name: 'a', rv: 15 }, { name: 'b', rv: 25 }, { name: 'b', rv: 35 }, { name: 'c', rv: 10 }, { name: 'c', rv: 41 }];
  // 25 fell between stretches (a 410 and a relist), 10 and 41 outside them: only 15 is a gap
  assert.deepEqual(w.gaps(acks), [{ name: 'a', rv: 15 }]);
});
