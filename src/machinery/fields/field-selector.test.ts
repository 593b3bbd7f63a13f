import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFieldSelector } from './field-selector.js';
import { FieldSelectorParseError } from './field-selector-parse-error.js';

test('parses =, == and != and prints a sorted canonical form', () => {
  const s = parseFieldSelector('status.phase!=Failed,metadata.name==web,spec.nodeName=n1');
  assert.equal(s.toString(), 'metadata.name=web,spec.nodeName=n1,status.phase!=Failed');
  assert.deepEqual(s.requirements(), [
    { field: 'metadata.name', operator: '=', value: 'web' },
    { field: 'spec.nodeName', operator: '=', value: 'n1' },
    { field: 'status.phase', operator: '!=', value: 'Failed' },
  ]);
  assert.equal(s.requiresExactMatch('metadata.name'), 'web');
  assert.equal(s.requiresExactMatch('status.phase'), undefined);
  assert.equal(s.requiresExactMatch('metadata.namespace'), undefined);
});

test('escaped commas and equals stay in values', () => {
  const s = parseFieldSelector('a=x\\,y\\=z\\\\,b=');
  assert.deepEqual(s.requirements().map((r) => r.value), ['x,y=z\\', '']);
  assert.equal(s.toString(), 'a=x\\,y\\=z\\\\,b=');
  assert.equal(s.matches({ a: 'x,y=z\\' }), true);
});

test('matches, treating missing fields as empty', () => {
  const fields = { 'metadata.name': 'web', 'spec.nodeName': '' };
  assert.equal(parseFieldSelector('metadata.name=web').matches(fields), true);
  assert.equal(parseFieldSelector('metadata.name!=web').matches(fields), false);
  assert.equal(parseFieldSelector('spec.nodeName=').matches(fields), true);
  assert.equal(parseFieldSelector('missing=').matches(fields), true);
  assert.equal(parseFieldSelector('missing!=').matches(fields), false);
  assert.equal(parseFieldSelector('constructor=').matches({}), true);
  assert.equal(parseFieldSelector('').matches(fields), true);
  assert.equal(parseFieldSelector('').empty(), true);
  assert.equal(parseFieldSelector(',,').empty(), true);
});

test('rejects malformed terms with upstream wording', () => {
  assert.throws(() => parseFieldSelector('a=b,nope'), (err: unknown) =>
    err instanceof FieldSelectorParseError && err.message === "invalid selector: 'a=b,nope'; can't understand 'nope'");
  assert.throws(() => parseFieldSelector('a=b=c'), { message: 'invalid field selector: unescaped character in value: =' });
});

test('transform maps field labels and can drop terms', () => {
  const s = parseFieldSelector('name=web,drop=x').transform((field, value) =>
    field === 'drop' ? { field: '', value: '' } : { field: `metadata.${field}`, value });
  assert.equal(s.toString(), 'metadata.name=web');
  assert.throws(() => parseFieldSelector('bogus=1').transform((field) => {
    throw new FieldSelectorParseError(`field label not supported: ${field}`);
  }), { message: 'field label not supported: bogus' });
});
