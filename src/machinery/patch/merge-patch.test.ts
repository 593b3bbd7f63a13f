import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch } from './merge-patch.js';
import { createMergePatch } from './create-merge-patch.js';

test('RFC 7386 examples', () => {
  const cases: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, want] of cases) assert.deepEqual(applyMergePatch(target, patch), want, JSON.stringify([target, patch]));
});

test('nulls inside objects nested in arrays are pruned, array elements kept', () => {
  assert.deepEqual(applyMergePatch({}, { list: [{ a: 1, b: null }, null] }), { list: [{ a: 1 }, null] });
});

test('does not modify its inputs and shares nothing with them', () => {
  const target = { spec: { replicas: 1, template: { labels: { a: '1' } } } };
  const patch = { spec: { replicas: 3, extra: { deep: true } } };
  const t0 = structuredClone(target);
  const p0 = structuredClone(patch);
  const out = applyMergePatch(target, patch) as { spec: { template: { labels: Record<string, string> }; extra: { deep: boolean } } };
  assert.deepEqual(target, t0);
  assert.deepEqual(patch, p0);
  out.spec.template.labels.b = '2';
  out.spec.extra.deep = false;
  assert.deepEqual(target, t0);
  assert.deepEqual(patch, p0);
});

test('__proto__ members are data, not prototypes', () => {
  const patch = JSON.parse('{"__proto__":{"polluted":true},"a":{"__proto__":{"x":1}}}') as unknown;
  const out = applyMergePatch({}, patch) as Record<string, unknown>;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(out.polluted, undefined);
  assert.equal(JSON.stringify(out), '{"__proto__":{"polluted":true},"a":{"__proto__":{"x":1}}}');
});

test('createMergePatch round-trips through applyMergePatch', () => {
  const original = { metadata: { labels: { a: '1', b: '2' }, name: 'x' }, spec: { list: [1, 2], keep: { v: 1 } }, gone: true };
  const modified = { metadata: { labels: { a: '1', c: '3' }, name: 'x' }, spec: { list: [2], keep: { v: 1 } }, added: { z: 1 } };
  const patch = createMergePatch(original, modified);
  assert.deepEqual(patch, { gone: null, metadata: { labels: { b: null, c: '3' } }, spec: { list: [2] }, added: { z: 1 } });
  assert.deepEqual(applyMergePatch(original, patch), modified);
  assert.deepEqual(createMergePatch(original, original), {});
  assert.deepEqual(createMergePatch({ a: 1 }, [1]), [1]);
});
