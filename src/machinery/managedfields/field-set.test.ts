import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet } from './field-set.js';
import { fieldPath, pathToString } from './path-element.js';

const set = (...paths: string[]) => FieldSet.of(...paths.map((p) => fieldPath(...p.split('.'))));
const names = (s: FieldSet) => s.paths().map(pathToString);

describe('FieldSet', () => {
  it('unions, intersects and subtracts member by member', () => {
    const a = set('spec.replicas', 'spec.paused', 'metadata.labels');
    const b = set('spec.replicas', 'spec.template.spec.nodeName');
    assert.deepEqual(names(a.union(b)), ['.metadata.labels', '.spec.paused', '.spec.replicas', '.spec.template.spec.nodeName']);
    assert.deepEqual(names(a.intersection(b)), ['.spec.replicas']);
    assert.deepEqual(names(a.difference(b)), ['.metadata.labels', '.spec.paused']);
    assert.ok(a.intersection(set('spec')).isEmpty(), 'a parent is not a member');
  });

  it('recursive difference drops whole subtrees', () => {
    const a = set('status', 'status.replicas', 'spec.replicas');
    assert.deepEqual(names(a.difference(set('status'))), ['.spec.replicas', '.status.replicas']);
    assert.deepEqual(names(a.recursiveDifference(set('status'))), ['.spec.replicas']);
  });

  it('promotes field parents to members for pruning', () => {
    assert.deepEqual(names(set('spec.strategy.type').withFieldParentsAsMembers()), ['.spec', '.spec.strategy', '.spec.strategy.type']);
  });

  it('compares structurally and ignores empty branches', () => {
    const a = set('a.b', 'c');
    assert.ok(a.equals(set('c', 'a.b')));
    assert.ok(!a.equals(set('c')));
    assert.ok(a.difference(set('a.b', 'c')).isEmpty());
    assert.deepEqual(a.difference(set('a.b')).entries().map((r) => r.pe), [{ kind: 'field', name: 'c' }]);
  });

  it('tells whether sets share a member or one lies within the other, without building sets', () => {
    const a = set('spec.replicas', 'spec.paused', 'metadata.labels');
    assert.ok(a.intersects(set('spec.paused', 'x')));
    assert.ok(!a.intersects(set('spec', 'spec.template', 'metadata.labels.app')), 'parents and children are other paths');
    assert.ok(set('spec.paused').isSubsetOf(a));
    assert.ok(new FieldSet().isSubsetOf(a));
    assert.ok(!set('spec.paused', 'spec.x').isSubsetOf(a));
    assert.ok(!set('spec').isSubsetOf(a));
    // an empty child left behind by a decoder is no member
    const withEmptyChild = new FieldSet();
    withEmptyChild.childFor(fieldPath('zzz')[0]);
    assert.ok(withEmptyChild.isSubsetOf(a));
    for (const other of [set('spec.paused'), set('q'), set('spec.replicas', 'metadata.labels'), set('spec.replicas.x')]) {
      assert.equal(a.intersects(other), !a.intersection(other).isEmpty(), names(other).join());
      assert.equal(other.isSubsetOf(a), other.difference(a).isEmpty(), names(other).join());
    }
  });

  it('a frozen set refuses changes, below its root too, and its operations return new sets', () => {
    const a = set('spec.replicas', 'metadata.labels').freeze();
    assert.throws(() => a.insert(fieldPath('x')), /frozen/);
    assert.throws(() => a.child(fieldPath('spec')).insert(fieldPath('y')), /frozen/);
    const u = a.union(set('x'));
    assert.ok(!u.isFrozen());
    u.insert(fieldPath('z'));
    assert.deepEqual(names(a), ['.metadata.labels', '.spec.replicas']);
  });
});
