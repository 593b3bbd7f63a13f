import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, isValidPortName, isConfigMapKey } from './name.js';

test('DNS-1123 subdomain message is upstream text', () => {
  assert.deepEqual(isDNS1123Subdomain('Foo_bar'), [
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  assert.deepEqual(isDNS1123Subdomain('my.app-1'), []);
  assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)).slice(0, 1), ['must be no more than 253 characters']);
});

test('DNS-1123 label reports dots and the regex message', () => {
  assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
  assert.deepEqual(isDNS1123Label('-x'), [
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
});

test('DNS-1035 label requires a leading letter', () => {
  assert.deepEqual(isDNS1035Label('1svc'), [
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.deepEqual(isDNS1035Label('svc-1'), []);
});

test('qualified names check prefix and name parts', () => {
  assert.deepEqual(isQualifiedName('example.com/app'), []);
  assert.deepEqual(isQualifiedName('/app'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('a/b/c'), [
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  ]);
  assert.deepEqual(isQualifiedName('-bad'), [
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
});

test('label values: empty allowed, 63 chars max', () => {
  assert.deepEqual(isValidLabelValue(''), []);
  assert.equal(isValidLabelValue('a'.repeat(64))[0], 'must be no more than 63 characters');
  assert.deepEqual(isValidLabelValue('bad value'), [
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  ]);
});

test('port names and config keys', () => {
  assert.deepEqual(isValidPortName('http'), []);
  assert.deepEqual(isValidPortName('123'), ['must contain at least one letter (a-z)']);
  assert.deepEqual(isValidPortName('a--b'), ['must not contain consecutive hyphens']);
  assert.deepEqual(isConfigMapKey('ok.key_1'), []);
  assert.deepEqual(isConfigMapKey('..x'), ["must not start with '..'"]);
  assert.deepEqual(isConfigMapKey('a b'), [
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
  ]);
});
