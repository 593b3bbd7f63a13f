import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countParsedKeys, findDuplicateFields, hasNoDuplicateKeys } from './duplicate-fields.js';
import { jsonBody } from './json-body.js';

/** What the API server passes: the text and the key count of its untouched parse. */
const withCount = (text: string) => findDuplicateFields(text, jsonBody(text, JSON.parse(text)).parsedKeys);

test('countParsedKeys counts every key of every object, once per name', () => {
  assert.equal(countParsedKeys(JSON.parse('{"a":1,"b":{"c":[{"d":1},{"e":{}}]},"f":[]}')), 6);
  assert.equal(countParsedKeys(JSON.parse('{"a":1,"a":2}')), 1);
  assert.equal(countParsedKeys(JSON.parse('{"__proto__":{"x":1}}')), 2);
  assert.equal(countParsedKeys(JSON.parse('[1,"a",null]')), 0);
});

test('the fast path proves bodies without duplicates, with colons in strings, escapes and whitespace', () => {
  const texts = [
    '{}',
    '{"a":1}',
    '{"image":"registry.k8s.io/pause:3.10","t":"2026-01-01T00:00:00Z"}',
    '{ "a" : { "b" : [ { "c" : "x:y" } , 1 ] } }',
    '{"metadata":{"managedFields":[{"fieldsV1":{"f:status":{"k:{\\"type\\":\\"Ready\\"}":{".":{},"f:status":{}}}}}]}}',
    '{"a":"quote \\" colon : inside","b":"back\\\\slash\\\\","c":"\\u003a"}',
  ];
  for (const text of texts) {
    assert.equal(hasNoDuplicateKeys(text, countParsedKeys(JSON.parse(text))), true, text);
    assert.deepEqual(withCount(text), [], text);
  }
});

test('duplicates fall back to the scanner, wherever they hide', () => {
  const cases: [string, string[]][] = [
    ['{"spec":{"replicas":1,"replicas":2}}', ['.spec.replicas']],
    // whitespace between the key and its colon
    ['{"a" :1,\n  "a"\t:\r2}', ['.a']],
    // the same key spelled with an escape
    ['{"a":1,"\\u0061":2}', ['.a']],
    // escaped quotes and colons in strings around the duplicate
    ['{"x":"\\":\\"","k:{\\"n\\":1}":{},"k:{\\"n\\":1}":{"a":"b:c"}}', ['.k:{"n":1}']],
    // a duplicate inside a list item, and one whose colon count would hide it if strings were not skipped
    ['{"l":[{"n":"a:b"},{"n":1,"n":2}]}', ['.l[1].n']],
    ['{"__proto__":1,"__proto__":2}', ['.__proto__']],
  ];
  for (const [text, want] of cases) {
    assert.equal(hasNoDuplicateKeys(text, countParsedKeys(JSON.parse(text))), false, text);
    assert.deepEqual(withCount(text), want, text);
    assert.deepEqual(findDuplicateFields(text), want, text);
  }
});

test('a count that does not fit the text never claims the text is clean', () => {
  // fewer colons than keys cannot come from a parse of the text: the scanner decides
  assert.equal(hasNoDuplicateKeys('{"a":1,"a":2}', 5), false);
  assert.deepEqual(findDuplicateFields('{"a":1,"a":2}', 5), ['.a']);
  assert.deepEqual(findDuplicateFields('{"a":', 0), []);
});

test('the fast path agrees with the scanner on generated bodies', () => {
  let seed = 7;
  // mulberry32: a small deterministic generator
  const rand = (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
  const keys = ['a', 'b', 'c:d', 'e\\"', 'f', '\\u0061'];
  const strings = ['"x"', '"y:z"', '"q\\":\\""', '""', '"\\\\"'];
  const ws = () => [' ', '', '\n', '\t'][rand(4)];
  const value = (depth: number): string => {
    const r = depth === 0 ? 4 : rand(depth > 3 ? 3 : 5);
    if (r === 0) return String(rand(100));
    if (r === 1) return strings[rand(strings.length)];
    if (r === 2) return 'null';
    if (r === 3) return `[${ws()}${Array.from({ length: rand(3) }, () => value(depth + 1)).join(`${ws()},${ws()}`)}]`;
    return `{${Array.from({ length: rand(4) }, () => `${ws()}"${keys[rand(keys.length)]}"${ws()}:${ws()}${value(depth + 1)}`).join(',')}${ws()}}`;
  };
  let withDuplicates = 0;
  for (let i = 0; i < 2000; i++) {
    const text = value(0);
    const slow = findDuplicateFields(text);
    if (slow.length > 0) withDuplicates++;
    assert.deepEqual(withCount(text), slow, text);
  }
  assert.ok(withDuplicates > 50, `only ${withDuplicates} generated bodies had duplicates`);
});
