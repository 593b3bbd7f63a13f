import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isQualifiedName, isValidLabelValue } from './label-validation.js';

test('qualified names', () => {
  for (const ok of ['a', 'A.b-c_d', 'example.com/Name', 'k8s.io/x', 'a'.repeat(63)]) assert.deepEqual(isQualifiedName(ok), [], ok);
  assert.deepEqual(isQualifiedName('/x'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('a/'), [
    'name part must be non-empty',
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
  assert.equal(isQualifiedName('a'.repeat(64))[0], 'name part must be no more than 63 characters');
  assert.match(isQualifiedName('a/b/c')[0], /^a qualified name must consist.* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
  assert.match(isQualifiedName('Upper.com/x')[0], /^prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric/);
});

test('label values', () => {
  for (const ok of ['', 'a', 'a-b_c.d', '1'.repeat(63)]) assert.deepEqual(isValidLabelValue(ok), [], ok);
  assert.equal(isValidLabelValue('-a').length, 1);
  assert.equal(isValidLabelValue('a b').length, 1);
  assert.deepEqual(isValidLabelValue('a'.repeat(64)), ['must be no more than 63 characters']);
});
