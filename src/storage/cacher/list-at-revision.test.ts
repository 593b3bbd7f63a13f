import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KeyValue, WatchEvent } from '../storage.js';
import { listAtRevision } from './list-at-revision.js';

/** A small random history: the objects at each revision, and the events between. */
function history(seed: number) {
  let state = seed;
  const random = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const names = ['/r/a/1', '/r/a/2', '/r/a/3', '/r/a/4', '/r/b/1', '/r/b/2', '/r/c/1'];
  const objects = new Map<string, KeyValue>();
  const snapshots: Map<string, KeyValue>[] = [];
  const events: WatchEvent[] = [];
  for (let revision = 1; revision <= 40; revision++) {
    const key = names[random(names.length)]!;
    const prev = objects.get(key);
    if (prev && random(3) === 0) {
      objects.delete(key);
      events.push({ type: 'DELETE', kv: { ...prev, modRevision: revision }, prevKv: prev });
    } else {
      const kv = { key, value: new Uint8Array([revision]), createRevision: prev?.createRevision ?? revision, modRevision: revision };
      objects.set(key, kv);
      events.push(prev ? { type: 'PUT', kv, prevKv: prev } : { type: 'PUT', kv });
    }
    snapshots[revision] = new Map(objects);
  }
  return { objects, snapshots, events };
}

test('a page at a past revision has the keys, order and remaining count of that revision', () => {
  for (let seed = 1; seed <= 30; seed++) {
    const { objects, snapshots, events } = history(seed);
    const keys = [...objects.keys()].sort();
    const current = { keys, get: (key: string) => objects.get(key) };
    for (const revision of [5, 20, 39, 40]) {
      for (const prefix of ['/r/', '/r/a/', '/r/b/']) {
        const expected = [...snapshots[revision]!.values()].filter((kv) => kv.key.startsWith(prefix)).sort((x, y) => (x.key < y.key ? -1 : 1));
        for (const limit of [1, 2, 3, 100]) {
          let startAfter: string | undefined;
          const seen: KeyValue[] = [];
          for (;;) {
            const page = listAtRevision(current, events.slice(revision), prefix, revision, { limit, startAfter })!;
            seen.push(...page.kvs);
            const left = expected.length - seen.length;
            assert.equal(page.remaining, left, `seed ${seed} revision ${revision} prefix ${prefix} limit ${limit}`);
            assert.equal(page.more, left > 0);
            if (!page.more) break;
            startAfter = page.kvs.at(-1)!.key;
          }
          assert.deepEqual(seen, expected);
        }
      }
    }
  }
});
