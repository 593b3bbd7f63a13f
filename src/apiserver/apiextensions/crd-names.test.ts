import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import { decideNames, setCondition } from './crd-names.js';

function crd(name: string, group: string, names: CustomResourceDefinition['spec']['names'], accepted = false): CustomResourceDefinition {
  return {
    metadata: { name: `${name}.${group}` },
    spec: { group, names, scope: 'Namespaced', versions: [] },
    status: accepted ? { acceptedNames: names, storedVersions: [] } : undefined,
  };
}

test('names without conflicts are accepted and the CRD established', () => {
  const d = decideNames(crd('widgets', 'a.io', { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] }), []);
  assert.deepEqual(d.acceptedNames, { plural: 'widgets', kind: 'Widget', singular: 'widget', shortNames: ['wd'], listKind: 'WidgetList' });
  assert.deepEqual(d.namesAccepted, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
  assert.deepEqual(d.established, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
});

test('a name another CRD of the group accepted is a conflict; other groups do not count', () => {
  const owner = crd('widgets', 'a.io', { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] }, true);
  const cases: [CustomResourceDefinition['spec']['names'], string, string][] = [
    [{ plural: 'widgets', kind: 'Other' }, 'PluralConflict', '"widgets" is already in use'],
    [{ plural: 'others', singular: 'widget', kind: 'Other' }, 'SingularConflict', '"widget" is already in use'],
    [{ plural: 'others', kind: 'Other', shortNames: ['wd', 'widgets'] }, 'ShortNamesConflict', '["wd" is already in use, "widgets" is already in use]'],
    [{ plural: 'others', kind: 'Widget' }, 'KindConflict', '"Widget" is already in use'],
    [{ plural: 'others', kind: 'Other', listKind: 'WidgetList' }, 'ListKindConflict', '"WidgetList" is already in use'],
  ];
  for (const [names, reason, message] of cases) {
    const d = decideNames(crd('x', 'a.io', names), [owner]);
    assert.equal(d.namesAccepted.reason, reason);
    assert.equal(d.namesAccepted.message, message);
    assert.equal(d.established.status, 'False');
    assert.equal(decideNames(crd('x', 'b.io', names), [owner]).namesAccepted.status, 'True');
  }
  // the owner keeps its own names
  assert.equal(decideNames(owner, [owner]).namesAccepted.status, 'True');
});

test('setCondition keeps lastTransitionTime while the status holds', () => {
  const conds = [{ type: 'A', status: 'True', reason: 'R', message: 'm', lastTransitionTime: 't0' }];
  assert.equal(setCondition(conds, { type: 'A', status: 'True', reason: 'R', message: 'm' }, 't1'), false);
  assert.equal(setCondition(conds, { type: 'A', status: 'True', reason: 'R2', message: 'm' }, 't1'), true);
  assert.equal(conds[0].lastTransitionTime, 't0');
  assert.equal(setCondition(conds, { type: 'A', status: 'False', reason: 'R2', message: 'm' }, 't2'), true);
  assert.equal(conds[0].lastTransitionTime, 't2');
});
