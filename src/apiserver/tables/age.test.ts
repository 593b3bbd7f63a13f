import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration, translateTimestampSince } from './age.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

void test('humanDuration matches upstream boundaries', () => {
  const cases: [number, string][] = [
    [-2 * S, '<invalid>'],
    [-1999, '0s'],
    [-1 * S, '0s'],
    [-999, '0s'],
    [0, '0s'],
    [999, '0s'],
    [5 * S, '5s'],
    [119 * S + 999, '119s'],
    [2 * M, '2m'],
    [3 * M + 12 * S, '3m12s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M, '10m'],
    [10 * M + 30 * S, '10m'],
    [179 * M + 59 * S, '179m'],
    [3 * H, '3h'],
    [3 * H + 5 * M, '3h5m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H, '8h'],
    [8 * H + 30 * M, '8h'],
    [47 * H + 59 * M, '47h'],
    [2 * D, '2d'],
    [2 * D + 3 * H, '2d3h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D, '8d'],
    [8 * D + 5 * H, '8d'],
    [729 * D, '729d'],
    [730 * D, '2y'],
    [731 * D, '2y1d'],
    [3 * 365 * D + 15 * D, '3y15d'],
    [8 * 365 * D - H, '7y364d'],
    [8 * 365 * D, '8y'],
    [10 * 365 * D + 100 * D, '10y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `humanDuration(${ms})`);
});

void test('translateTimestampSince reads unset and zero timestamps as <unknown>', () => {
  const now = new Date('2024-05-01T12:00:00Z');
  assert.equal(translateTimestampSince(undefined, now), '<unknown>');
  assert.equal(translateTimestampSince('', now), '<unknown>');
  assert.equal(translateTimestampSince('0001-01-01T00:00:00Z', now), '<unknown>');
  assert.equal(translateTimestampSince('not a time', now), '<unknown>');
  assert.equal(translateTimestampSince('2024-05-01T11:56:48Z', now), '3m12s');
  assert.equal(translateTimestampSince('2024-04-29T08:59:59.123456Z', now), '2d3h');
  assert.equal(translateTimestampSince('2024-04-29T09:00:00.123456Z', now), '2d2h');
});
