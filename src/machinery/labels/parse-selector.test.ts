import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSelector } from './parse-selector.js';
import { SelectorParseError } from './selector-parse-error.js';

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

function parseError(s: string): string {
  try {
    parseSelector(s);
  } catch (err) {
    assert.ok(err instanceof SelectorParseError, `expected SelectorParseError for ${s}`);
    return err.message;
  }
  assert.fail(`expected ${JSON.stringify(s)} to fail`);
}

test('round-trips every operator to upstream string form, sorted by key', () => {
  const cases: Array<[string, string]> = [
    ['', ''],
    ['x=a', 'x=a'],
    ['x==a', 'x==a'],
    ['x!=a', 'x!=a'],
    ['x', 'x'],
    ['!x', '!x'],
    ['x>1', 'x>1'],
    ['x<10', 'x<10'],
    ['x in (b,a)', 'x in (a,b)'],
    ['x notin ( a )', 'x notin (a)'],
    ['z=1, a in (x), !m', 'a in (x),!m,z=1'],
    ['x=', 'x='],
    ['x in ()', 'x in ()'],
    ['x in (a,,b)', 'x in (,a,b)'],
    ['example.com/app=web', 'example.com/app=web'],
    ['in=notin', 'in=notin'],
    ['x in (in,notin)', 'x in (in,notin)'],
  ];
  for (const [input, want] of cases) assert.equal(parseSelector(input).toString(), want, input);
});

test('matches labels per operator', () => {
  const labels = { app: 'web', tier: 'front', n: '5' };
  const yes = ['app=web', 'app==web', 'app!=db', 'missing!=x', 'app in (db,web)', 'app notin (db)', 'missing notin (x)',
    'app', '!missing', 'n>4', 'n<6', 'app=web,tier=front', ''];
  const no = ['app=db', 'app!=web', 'app in (db)', 'app notin (web)', 'missing', '!app', 'n>5', 'n<5', 'app>1',
    'missing>1', 'missing=x', 'app=web,tier=back'];
  for (const s of yes) assert.equal(parseSelector(s).matches(labels), true, s);
  for (const s of no) assert.equal(parseSelector(s).matches(labels), false, s);
  assert.equal(parseSelector('x!=a').matches(undefined), true);
  assert.equal(parseSelector('x=a').matches(undefined), false);
  // Inherited properties are not labels.
  assert.equal(parseSelector('constructor').matches({}), false);
  assert.equal(parseSelector('x=').matches({ x: '' }), true);
});

test('empty() and requiresExactMatch', () => {
  assert.equal(parseSelector('').empty(), true);
  assert.equal(parseSelector('  ').empty(), true);
  assert.equal(parseSelector('a').empty(), false);
  const s = parseSelector('a=1,b in (2),c in (3,4),d!=5');
  assert.equal(s.requiresExactMatch('a'), '1');
  assert.equal(s.requiresExactMatch('b'), '2');
  assert.equal(s.requiresExactMatch('c'), undefined);
  assert.equal(s.requiresExactMatch('d'), undefined);
  assert.deepEqual(s.requirements().map((r) => r.key), ['a', 'b', 'c', 'd']);
});

test('reports parse errors with upstream wording', () => {
  assert.equal(parseError('a b'), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  // Negative numbers are valid integers but not valid label values, as upstream.
  assert.match(parseError('x<-1'), /values\[0\]\[x\]: Invalid value: "-1"/);
  assert.equal(parseError('x=a,'), "found '', expected: identifier after ','");
  assert.equal(parseError('=a'), "found '=', expected: !, identifier, or 'end of string'");
  assert.equal(parseError('x in a'), "unable to parse requirement: found 'a' expected: '('");
  assert.equal(parseError('x in (a b)'), "unable to parse requirement: found 'b', expected: ',' or ')'");
  assert.equal(parseError('x in (a'), "unable to parse requirement: found '', expected: ',' or ')'");
  assert.equal(parseError('x=(a)'), "unable to parse requirement: found '(', expected: identifier");
  assert.equal(parseError('x (a)'), "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt");
  assert.equal(parseError('app:monolith'), `unable to parse requirement: <nil>: Invalid value: "app:monolith": ${NAME_PART}`);
  assert.equal(
    parseError('x>a'),
    `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
  );
  assert.match(parseError('x=a b c'), /^found 'b', expected/);
  assert.match(parseError('x=-bad-'), /^unable to parse requirement: values\[0\]\[x\]: Invalid value: "-bad-": a valid label must be/);
  assert.match(parseError('Foo.com/x=1'), /<nil>: Invalid value: "Foo.com\/x": prefix part a lowercase RFC 1123 subdomain/);
  assert.match(parseError('x>99999999999999999999'), /must be an integer/);
});
