import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch } from './json-patch.js';
import { PatchError } from './patch-error.js';

function failure(doc: unknown, patch: unknown): PatchError {
  try {
    applyJsonPatch(doc, patch);
  } catch (err) {
    assert.ok(err instanceof PatchError);
    return err;
  }
  assert.fail('expected the patch to fail');
}

test('applies every operation without touching the input', () => {
  const doc = { metadata: { name: 'a', labels: { x: '1' } }, spec: { list: [1, 2, 3] } };
  const before = structuredClone(doc);
  const out = applyJsonPatch(doc, [
    { op: 'add', path: '/metadata/labels/y', value: '2' },
    { op: 'add', path: '/spec/list/-', value: 4 },
    { op: 'add', path: '/spec/list/0', value: 0 },
    { op: 'remove', path: '/spec/list/1' },
    { op: 'replace', path: '/metadata/name', value: 'b' },
    { op: 'move', from: '/metadata/labels/x', path: '/metadata/labels/z' },
    { op: 'copy', from: '/metadata/labels', path: '/metadata/annotations' },
    { op: 'test', path: '/spec/list', value: [0, 2, 3, 4] },
  ]);
  assert.deepEqual(out, {
    metadata: { name: 'b', labels: { y: '2', z: '1' }, annotations: { y: '2', z: '1' } },
    spec: { list: [0, 2, 3, 4] },
  });
  assert.deepEqual(doc, before);
});

test('copied and added values are independent of the patch and of each other', () => {
  const value = { deep: [1] };
  const out = applyJsonPatch({}, [
    { op: 'add', path: '/a', value },
    { op: 'copy', from: '/a', path: '/b' },
  ]) as { a: { deep: number[] }; b: { deep: number[] } };
  out.a.deep.push(2);
  assert.deepEqual(out.b.deep, [1]);
  assert.deepEqual(value.deep, [1]);
});

test('JSON pointer escapes ~0 and ~1 and the whole-document path', () => {
  const out = applyJsonPatch({ 'a/b': 1, 'c~d': 2 }, [
    { op: 'replace', path: '/a~1b', value: 10 },
    { op: 'remove', path: '/c~0d' },
    { op: 'add', path: '/example.com~1role', value: 'x' },
  ]);
  assert.deepEqual(out, { 'a/b': 10, 'example.com/role': 'x' });
  assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: [1] }]), [1]);
});

test('failures carry upstream-like messages and kinds', () => {
  const doc = { spec: { list: [1] }, metadata: { name: 'a' } };
  const cases: Array<[unknown, string]> = [
    [[{ op: 'add', path: '/nope/x', value: 1 }], 'add operation does not apply: doc is missing path: "/nope/x": missing value'],
    [[{ op: 'remove', path: '/metadata/nope' }], "error in remove for path: '/metadata/nope': Unable to remove nonexistent key: nope: missing value"],
    [[{ op: 'replace', path: '/metadata/nope', value: 1 }], 'replace operation does not apply: doc is missing key: /metadata/nope: missing value'],
    [[{ op: 'add', path: '/spec/list/5', value: 1 }], 'Unable to access invalid index: 5: invalid index referenced'],
    [[{ op: 'add', path: '/spec/list/01', value: 1 }], 'Unable to access invalid index: 01: invalid index referenced'],
    [[{ op: 'replace', path: '/spec/list/-', value: 1 }], 'Unable to access invalid index: -: invalid index referenced'],
    [[{ op: 'test', path: '/metadata/name', value: 'b' }], 'testing value /metadata/name failed: test failed'],
    [[{ op: 'move', from: '/nope', path: '/x' }], 'move operation does not apply: doc is missing from path: /nope: missing value'],
    [[{ op: 'move', from: '/spec', path: '/spec/inner' }], 'move operation does not apply: /spec/inner is a child of /spec'],
    [[{ op: 'jump', path: '/x' }], 'Unexpected kind: jump'],
    [[{ path: '/x' }], 'Unexpected kind: unknown'],
    [[{ op: 'add', value: 1 }], 'add operation failed to decode path: missing value'],
    [[{ op: 'add', path: '/x' }], 'add operation has no value: missing value'],
  ];
  for (const [patch, message] of cases) {
    const err = failure(doc, patch);
    assert.equal(err.message, message);
    assert.equal(err.kind, 'PatchFailed');
  }
  assert.equal(failure(doc, { op: 'add' }).kind, 'InvalidPatch');
  assert.equal(failure(doc, [1]).kind, 'InvalidPatch');
});

test('a failing operation leaves the input untouched', () => {
  const doc = { a: { b: 1 } };
  failure(doc, [{ op: 'remove', path: '/a/b' }, { op: 'test', path: '/a/b', value: 1 }]);
  assert.deepEqual(doc, { a: { b: 1 } });
});

test('test treats an absent member as null, as upstream', () => {
  assert.deepEqual(applyJsonPatch({ a: {} }, [{ op: 'test', path: '/a/x', value: null }]), { a: {} });
  assert.deepEqual(applyJsonPatch({ a: { x: 1, y: [1, { z: 2 }] } }, [{ op: 'test', path: '/a', value: { y: [1, { z: 2 }], x: 1 } }]), {
    a: { x: 1, y: [1, { z: 2 }] },
  });
});

test('__proto__ is plain data and never pollutes prototypes', () => {
  const out = applyJsonPatch({}, [
    { op: 'add', path: '/__proto__', value: { polluted: true } },
    { op: 'add', path: '/__proto__/more', value: 1 },
    { op: 'add', path: '/constructor', value: { prototype: { polluted: true } } },
  ]) as Record<string, unknown>;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(out.polluted, undefined);
  assert.deepEqual(Object.keys(out), ['__proto__', 'constructor']);
  assert.equal(JSON.stringify(out), '{"__proto__":{"polluted":true,"more":1},"constructor":{"prototype":{"polluted":true}}}');
  // Reading through inherited members finds nothing.
  assert.equal(failure({}, [{ op: 'remove', path: '/toString' }]).kind, 'PatchFailed');
  const parsed = JSON.parse('{"__proto__":{"x":1}}') as unknown;
  assert.deepEqual(Object.keys(applyJsonPatch(parsed, [{ op: 'add', path: '/__proto__/y', value: 2 }]) as object), ['__proto__']);
});

test('copy growth is bounded', () => {
  const patch = [{ op: 'add', path: '/a', value: 'x'.repeat(100) }];
  for (let i = 0; i < 20; i++) patch.push({ op: 'copy', from: '', path: `/c${i}` } as never);
  assert.throws(() => applyJsonPatch({}, patch, { maxCopyBytes: 10_000 }), /accumulated size increase of copy/);
});
