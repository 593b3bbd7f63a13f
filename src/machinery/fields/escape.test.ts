import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeValue, unescapeValue } from './escape.js';
import { FieldSelectorParseError } from './field-selector-parse-error.js';

test('escape and unescape round-trip', () => {
  for (const v of ['', 'plain', 'a,b', 'a=b', 'a\\b', '\\,=\\\\']) assert.equal(unescapeValue(escapeValue(v)), v);
  assert.equal(escapeValue('a,b=c\\d'), 'a\\,b\\=c\\\\d');
});

test('unescape rejects bad sequences with upstream wording', () => {
  const cases: Array<[string, string]> = [
    ['a\\b', 'invalid field selector: invalid escape sequence: \\b'],
    ['a\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=b', 'invalid field selector: unescaped character in value: ='],
    ['a,b', 'invalid field selector: unescaped character in value: ,'],
  ];
  for (const [input, message] of cases) {
    assert.throws(() => unescapeValue(input), (err: unknown) => err instanceof FieldSelectorParseError && err.message === message, input);
  }
});
