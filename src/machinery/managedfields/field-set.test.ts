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
});
