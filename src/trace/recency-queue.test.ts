import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecencyQueue } from './recency-queue.js';

describe('RecencyQueue', () => {
  it('yields keys least recently touched first', () => {
    const q = new RecencyQueue<string>();
    for (const k of ['a', 'b', 'c', 'a']) q.touch(k);
    assert.equal(q.oldest(), 'b');
    q.delete('b');
    assert.equal(q.oldest(), 'c');
    q.delete('c');
    assert.equal(q.oldest(), 'a');
    q.delete('a');
    assert.equal(q.oldest(), undefined);
    assert.equal(q.size, 0);
  });

  it('keeps its order through compaction of many stale places', () => {
    const q = new RecencyQueue<number>();
    for (let i = 0; i < 10; i++) q.touch(i);
    // touching 1..9 over and over leaves key 0 the oldest
    for (let round = 0; round < 1000; round++) for (let i = 1; i < 10; i++) q.touch(i);
    assert.equal(q.size, 10);
    const order: number[] = [];
    for (let k = q.oldest(); k !== undefined; k = q.oldest()) {
      order.push(k);
      q.delete(k);
    }
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('treats a repeated touch of the newest key as one', () => {
    const q = new RecencyQueue<string>();
    q.touch('a');
    q.touch('b');
    q.touch('b');
    q.delete('b');
    q.touch('b');
    assert.equal(q.oldest(), 'a');
  });
});
