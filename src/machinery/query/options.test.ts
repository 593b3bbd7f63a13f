import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../api-error.js';
import { isPrettyPrint, parseDeleteQuery, parseListOptions, parseWriteQuery, validateListOptions } from './options.js';

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

test('ListOptions as the Python client sends them', () => {
  assert.deepEqual(parseListOptions(q('watch=True&allowWatchBookmarks=True&resourceVersion=12&timeoutSeconds=30&limit=0')), {
    watch: true,
    allowWatchBookmarks: true,
    resourceVersion: '12',
    resourceVersionMatch: undefined,
    timeoutSeconds: 30,
    limit: 0,
    continue: undefined,
    sendInitialEvents: undefined,
  });
  assert.equal(parseListOptions(q('sendInitialEvents=False')).sendInitialEvents, false);
  // unknown parameters are ignored
  assert.equal(parseListOptions(q('bogus=1&watch=0')).watch, false);
});

test('the first field that does not convert is the one reported, in the Go struct order', () => {
  assert.deepEqual(refusal(() => parseListOptions(q('limit=x&timeoutSeconds=y'))), { code: 400, message: 'strconv.ParseInt: parsing "y": invalid syntax' });
  assert.deepEqual(refusal(() => parseListOptions(q('limit=x'))), { code: 400, message: 'strconv.ParseInt: parsing "x": invalid syntax' });
});

test('list and watch options are validated as upstream (422 on ListOptions.meta.k8s.io)', () => {
  const cases: [string, boolean, string | undefined][] = [
    ['resourceVersion=5&resourceVersionMatch=NotOlderThan', false, undefined],
    ['resourceVersion=5&resourceVersionMatch=Exact', false, undefined],
    ['resourceVersionMatch=Exact', false, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ['resourceVersion=5&resourceVersionMatch=Newest', false, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""'],
    ['resourceVersion=0&resourceVersionMatch=Exact', false, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    ['resourceVersion=5&resourceVersionMatch=Exact&continue=abc', false, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided'],
    ['sendInitialEvents=true', false, 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ['watch=1&resourceVersionMatch=NotOlderThan', true, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
    ['watch=1&sendInitialEvents=true', true, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
    ['watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan', true, undefined],
    [
      'watch=1&sendInitialEvents=true&resourceVersionMatch=Exact',
      true,
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    ],
  ];
  for (const [query, isWatch, message] of cases) {
    const run = () => validateListOptions(parseListOptions(q(query)), isWatch);
    if (message === undefined) assert.doesNotThrow(run, query);
    else assert.deepEqual(refusal(run), { code: 422, message }, query);
  }
});

test('delete and write options', () => {
  assert.deepEqual(parseDeleteQuery(q('gracePeriodSeconds=0&propagationPolicy=Foreground&orphanDependents=False&dryRun=All')), {
    gracePeriodSeconds: 0,
    orphanDependents: false,
    propagationPolicy: 'Foreground',
    dryRun: ['All'],
  });
  assert.deepEqual(refusal(() => parseDeleteQuery(q('gracePeriodSeconds=soon'))), { code: 400, message: 'strconv.ParseInt: parsing "soon": invalid syntax' });
  assert.deepEqual(parseWriteQuery(q('fieldManager=py&force=True&fieldValidation=Strict&dryRun=All')), { dryRun: ['All'], force: true, fieldManager: 'py', fieldValidation: 'Strict' });
  assert.equal(parseWriteQuery(q('')).force, undefined);
});

test('pretty: ParseBool, else by user agent as upstream', () => {
  const cases: [string, string | undefined, boolean][] = [
    ['pretty=true', undefined, true],
    ['pretty=1', 'kubectl/v1.33', true],
    ['pretty=T', undefined, true],
    ['pretty=yes', undefined, false],
    ['pretty=false', 'curl/8.5.0', false],
    ['', 'curl/8.5.0', true],
    ['', 'Wget/1.21', true],
    ['', 'Mozilla/5.0 (X11)', true],
    ['', 'OpenAPI-Generator/22.0.0/python', false],
    ['', undefined, false],
  ];
  for (const [query, agent, want] of cases) assert.equal(isPrettyPrint(q(query), agent), want, `${query} ${agent}`);
});
