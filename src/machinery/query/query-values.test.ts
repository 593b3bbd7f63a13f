import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../api-error.js';
import { boolParam, int64Param, optionalBoolParam, parseGoBool, portsParam, timeParam } from './query-values.js';

const q = (s: string) => new URLSearchParams(s);

function refusal(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(ApiError.is(err), String(err));
    return { code: err.code, message: err.message };
  }
  assert.fail('expected a refusal');
}

test('booleans convert as upstream: only "0" and any case of "false" are false, every other value is true', () => {
  const cases: [string, boolean | undefined][] = [
    ['', undefined],
    ['watch=true', true],
    ['watch=True', true],
    ['watch=TRUE', true],
    ['watch=1', true],
    ['watch=t', true],
    ['watch=', true],
    ['watch=yes', true],
    ['watch=false', false],
    ['watch=False', false],
    ['watch=FALSE', false],
    ['watch=fAlSe', false],
    ['watch=0', false],
    ['watch=true&watch=false', true],
    ['watch=0&watch=1', false],
  ];
  for (const [query, want] of cases) {
    assert.equal(optionalBoolParam(q(query), 'watch'), want, query);
    assert.equal(boolParam(q(query), 'watch'), want ?? false, query);
  }
});

test("Go's strconv.ParseBool (pretty) accepts exactly its twelve spellings", () => {
  for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseGoBool(t), true, t);
  for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseGoBool(f), false, f);
  for (const bad of ['', 'yes', 'tRUE', 'on', '2']) assert.equal(parseGoBool(bad), undefined, bad);
});

test("integers are Go's strconv.ParseInt and a bad one is a 400 with Go's error", () => {
  const good: [string, number | undefined][] = [
    ['', undefined],
    ['limit=500', 500],
    ['limit=%2B7', 7],
    ['limit=-3', -3],
    ['limit=007', 7],
    ['limit=9223372036854775807', 9223372036854775807],
    ['limit=5&limit=x', 5],
  ];
  for (const [query, want] of good) assert.equal(int64Param(q(query), 'limit'), want, query);
  const bad: [string, string][] = [
    ['limit=abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['limit=', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['limit=1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ['limit=%201', 'strconv.ParseInt: parsing " 1": invalid syntax'],
    ['limit=0x10', 'strconv.ParseInt: parsing "0x10": invalid syntax'],
    ['limit=9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
  ];
  for (const [query, message] of bad) assert.deepEqual(refusal(() => int64Param(q(query), 'limit')), { code: 400, message }, query);
});

test('port-forward ports: repeated and comma-separated, each a 16-bit unsigned integer', () => {
  assert.deepEqual(portsParam(q('ports=8080'), 'ports'), [8080]);
  assert.deepEqual(portsParam(q('ports=8080,9090'), 'ports'), [8080, 9090]);
  assert.deepEqual(portsParam(q('ports=1&ports=2,3'), 'ports'), [1, 2, 3]);
  assert.deepEqual(portsParam(q(''), 'ports'), []);
  assert.deepEqual(refusal(() => portsParam(q('ports=80,x'), 'ports')), { code: 400, message: 'cannot convert to []int32: strconv.ParseUint: parsing "x": invalid syntax' });
  assert.deepEqual(refusal(() => portsParam(q('ports=70000'), 'ports')), { code: 400, message: 'cannot convert to []int32: strconv.ParseUint: parsing "70000": value out of range' });
  assert.deepEqual(refusal(() => portsParam(q('ports=-1'), 'ports')), { code: 400, message: 'cannot convert to []int32: strconv.ParseUint: parsing "-1": invalid syntax' });
});

test('times are RFC 3339; empty and "null" mean unset', () => {
  assert.equal(timeParam(q('sinceTime=2024-01-02T03:04:05Z'), 'sinceTime')?.toISOString(), '2024-01-02T03:04:05.000Z');
  assert.equal(timeParam(q('sinceTime=2024-01-02T03:04:05.5%2B01:00'), 'sinceTime')?.toISOString(), '2024-01-02T02:04:05.500Z');
  assert.equal(timeParam(q('sinceTime='), 'sinceTime'), undefined);
  assert.equal(timeParam(q('sinceTime=null'), 'sinceTime'), undefined);
  assert.equal(refusal(() => timeParam(q('sinceTime=yesterday'), 'sinceTime')).code, 400);
  assert.match(refusal(() => timeParam(q('sinceTime=2024-01-02'), 'sinceTime')).message, /^parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00"/);
});
