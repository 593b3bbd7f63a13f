import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareKeys, lowerBound, prefixEnd } from './key-range.js';

describe('prefixEnd', () => {
  it('increments the last code point', () => {
    assert.equal(prefixEnd('/a/'), '/a0');
    assert.equal(prefixEnd('/😀'), '/😁');
    assert.equal(prefixEnd('\ud7ff'), '\ue000', 'skips the surrogate range');
  });

  it('drops trailing maximal code points and has no end for the empty prefix', () => {
    assert.equal(prefixEnd('a\u{10ffff}'), 'b');
    assert.equal(prefixEnd('\u{10ffff}'), undefined);
    assert.equal(prefixEnd(''), undefined);
  });

  it('bounds every key with the prefix', () => {
    for (const prefix of ['/a/', '/é', '/\uffff', '/😀']) {
      const end = prefixEnd(prefix)!;
      for (const suffix of ['', 'x', '\uffff', '😀', '\u{10ffff}\u{10ffff}']) {
        assert.ok(compareKeys(prefix + suffix, end) < 0, `${prefix + suffix} < ${end}`);
      }
    }
  });
});

describe('compareKeys', () => {
  it('orders by code point, unlike UTF-16 comparison', () => {
    assert.ok('😀' < '\uffff', 'JavaScript compares code units');
    assert.ok(compareKeys('😀', '\uffff') > 0);
  });
});

describe('lowerBound', () => {
  it('starts at the prefix unless startAfter lies inside or beyond it', () => {
    assert.deepEqual(lowerBound('/p/'), { key: '/p/', inclusive: true });
    assert.deepEqual(lowerBound('/p/', '/a'), { key: '/p/', inclusive: true });
    assert.deepEqual(lowerBound('/p/', '/p/x'), { key: '/p/x', inclusive: false });
  });
});
