import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatLabelSelector, labelSelectorAsString, labelSelectorFromObject } from './label-selector-from-object.js';
import { SelectorParseError } from './selector-parse-error.js';

test('null or undefined selects nothing; empty selects everything', () => {
  assert.equal(labelSelectorFromObject(undefined).matches({ a: '1' }), false);
  assert.equal(labelSelectorFromObject(null).matches(undefined), false);
  assert.equal(labelSelectorFromObject(null).empty(), false);
  assert.equal(labelSelectorFromObject({}).matches(undefined), true);
  assert.equal(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }).empty(), true);
});

test('matchLabels and matchExpressions are ANDed', () => {
  const sel = labelSelectorFromObject({
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['front', 'edge'] },
      { key: 'env', operator: 'NotIn', values: ['prod'] },
      { key: 'team', operator: 'Exists' },
      { key: 'legacy', operator: 'DoesNotExist' },
    ],
  });
  assert.equal(sel.matches({ app: 'web', tier: 'edge', team: 'a' }), true);
  assert.equal(sel.matches({ app: 'web', tier: 'edge', team: 'a', env: 'prod' }), false);
  assert.equal(sel.matches({ app: 'web', tier: 'edge', team: 'a', legacy: 'y' }), false);
  assert.equal(sel.matches({ app: 'web', tier: 'back', team: 'a' }), false);
  assert.equal(sel.matches({ app: 'web', tier: 'edge' }), false);
  assert.equal(sel.toString(), 'app=web,env notin (prod),!legacy,team,tier in (edge,front)');
});

test('string forms for status.selector and kubectl', () => {
  assert.equal(labelSelectorAsString({ matchLabels: { b: '2', a: '1' } }), 'a=1,b=2');
  assert.equal(labelSelectorAsString(undefined), '');
  assert.equal(labelSelectorAsString({}), '');
  assert.equal(formatLabelSelector({}), '<none>');
  assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }), '<error>');
});

test('invalid expressions throw SelectorParseError with upstream wording', () => {
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }), {
    name: 'SelectorParseError',
    message: '"Gt" is not a valid label selector operator',
  });
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), {
    message: "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
  });
  assert.throws(
    () => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
    (err: unknown) => err instanceof SelectorParseError && err.message.includes('values set must be empty for exists and does not exist'),
  );
  assert.throws(() => labelSelectorFromObject({ matchLabels: { 'bad key': 'x' } }), /^SelectorParseError: key: Invalid value: "bad key": name part/);
  assert.throws(() => labelSelectorFromObject({ matchLabels: { a: 'x'.repeat(64) } }), /must be no more than 63 characters/);
});
