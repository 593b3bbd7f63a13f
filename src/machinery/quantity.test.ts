import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Quantity, QuantityParseError, parseQuantity } from './quantity.js';

test('canonical string forms match upstream', () => {
  const cases: Array<[string, string]> = [
    ['0', '0'],
    ['000', '0'],
    ['-0', '0'],
    ['1000m', '1'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['0.5', '500m'],
    ['100m', '100m'],
    ['1.5', '1500m'],
    ['1.5k', '1500'],
    ['2', '2'],
    ['500Mi', '500Mi'],
    ['8Ki', '8Ki'],
    ['1Ki', '1Ki'],
    ['0.5Ki', '512'],
    ['1536', '1536'],
    ['1e3', '1e3'],
    ['1E3', '1E3'],
    ['10E3', '10E3'],
    ['10e2', '1e3'],
    ['1000e0', '1e3'],
    ['1e-3', '1e-3'],
    ['12e2', '1200'],
    ['1000k', '1M'],
    ['1E', '1E'],
    ['1000E', '1000E'],
    ['1n', '1n'],
    ['0.1n', '1n'],
    ['1u', '1u'],
    ['-100m', '-100m'],
    ['-1000m', '-1'],
    ['+1', '+1'],
    ['.5', '500m'],
    ['0.100', '100m'],
    ['1.', '1.'], // upstream keeps text that parsed through its fast path
    ['1.0', '1'],
    ['1.001Ki', '1025024m'],
    ['16Ei', '9223372036854775807'],
  ];
  for (const [input, want] of cases) assert.equal(parseQuantity(input).toString(), want, input);
});

test('value() and milliValue() round away from zero', () => {
  assert.equal(parseQuantity('100m').value(), 1);
  assert.equal(parseQuantity('100m').milliValue(), 100);
  assert.equal(parseQuantity('-100m').value(), -1);
  assert.equal(parseQuantity('1Gi').value(), 1073741824);
  assert.equal(parseQuantity('1.5').milliValue(), 1500);
  assert.equal(parseQuantity('1n').milliValue(), 1);
  assert.equal(parseQuantity('1e3').value(), 1000);
  assert.equal(parseQuantity('2').value(), 2);
  assert.equal(parseQuantity('250m').toNumber(), 0.25);
});

test('comparison and arithmetic', () => {
  const a = parseQuantity('1Gi');
  const b = parseQuantity('1024Mi');
  assert.equal(a.cmp(b), 0);
  assert.ok(a.equal(b));
  assert.equal(parseQuantity('500m').cmp(parseQuantity('1')), -1);
  assert.equal(parseQuantity('2').cmp(parseQuantity('1999m')), 1);
  assert.equal(parseQuantity('1').add(parseQuantity('500m')).toString(), '1500m');
  assert.equal(parseQuantity('1Gi').add(parseQuantity('512Mi')).toString(), '1536Mi');
  assert.equal(parseQuantity('1Gi').sub(parseQuantity('1Gi')).toString(), '0');
  assert.equal(Quantity.fromValue(0).add(parseQuantity('1Ki')).format, 'BinarySI');
  assert.equal(parseQuantity('100m').sub(parseQuantity('200m')).toString(), '-100m');
  assert.equal(Quantity.fromValue(4, 'BinarySI').toString(), '4');
  assert.equal(Quantity.fromValue(4n * 1024n ** 3n, 'BinarySI').toString(), '4Gi');
  assert.equal(Quantity.fromMilliValue(2500).toString(), '2500m');
  assert.equal(JSON.stringify({ cpu: parseQuantity('0.5') }), '{"cpu":"500m"}');
});

test('rejects malformed quantities with upstream messages', () => {
  const format = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const cases: Array<[string, string]> = [
    ['', format],
    ['abc', format],
    ['1.2.3', format],
    ['1 Gi', format],
    ['1Gi ', format],
    ['1i', "unable to parse quantity's suffix"],
    ['1Ki5', "unable to parse quantity's suffix"],
    ['1e', "unable to parse quantity's suffix"],
    ['1ee3', "unable to parse quantity's suffix"],
    ['1KB', format],
  ];
  for (const [input, message] of cases) {
    assert.throws(() => parseQuantity(input), (err: unknown) => err instanceof QuantityParseError && err.message === message, input);
  }
});
