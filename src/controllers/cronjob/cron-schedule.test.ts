import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CronParseError, parseCronSchedule } from './cron-schedule.js';
import { missedStarts } from './missed-starts.js';
import { formatRfc3339 } from './wall-clock.js';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

function nextTimes(schedule: string, from: string, n: number, tz?: string): (string | undefined)[] {
  const s = parseCronSchedule(schedule, tz);
  const out: (string | undefined)[] = [];
  let t: number | undefined = at(from);
  for (let i = 0; i < n && t !== undefined; i++) out.push(iso((t = s.next(t))));
  return out;
}

test('every minute and step fields', () => {
  assert.deepEqual(nextTimes('*/1 * * * *', '2024-03-01T10:00:30Z', 2), ['2024-03-01T10:01:00.000Z', '2024-03-01T10:02:00.000Z']);
  assert.deepEqual(nextTimes('*/15 * * * *', '2024-03-01T10:00:00Z', 3), ['2024-03-01T10:15:00.000Z', '2024-03-01T10:30:00.000Z', '2024-03-01T10:45:00.000Z']);
  assert.deepEqual(nextTimes('5/20 * * * *', '2024-03-01T10:00:00Z', 3), ['2024-03-01T10:05:00.000Z', '2024-03-01T10:25:00.000Z', '2024-03-01T10:45:00.000Z']);
  assert.deepEqual(nextTimes('0 9-17/4 * * *', '2024-03-01T10:00:00Z', 3), ['2024-03-01T13:00:00.000Z', '2024-03-01T17:00:00.000Z', '2024-03-02T09:00:00.000Z']);
});

test('strictly after: an exact match is not returned again', () => {
  assert.equal(iso(parseCronSchedule('30 10 * * *').next(at('2024-03-01T10:30:00Z'))), '2024-03-02T10:30:00.000Z');
});

test('descriptors and names', () => {
  assert.deepEqual(nextTimes('@hourly', '2024-03-01T10:20:00Z', 1), ['2024-03-01T11:00:00.000Z']);
  assert.deepEqual(nextTimes('@daily', '2024-03-01T10:20:00Z', 1), ['2024-03-02T00:00:00.000Z']);
  assert.deepEqual(nextTimes('@weekly', '2024-03-01T10:20:00Z', 1), ['2024-03-03T00:00:00.000Z']); // a Sunday
  assert.deepEqual(nextTimes('@monthly', '2024-03-01T10:20:00Z', 1), ['2024-04-01T00:00:00.000Z']);
  assert.deepEqual(nextTimes('@yearly', '2024-03-01T10:20:00Z', 1), ['2025-01-01T00:00:00.000Z']);
  assert.deepEqual(nextTimes('0 12 * JAN,jul MON-wed', '2024-03-01T00:00:00Z', 2), ['2024-07-01T12:00:00.000Z', '2024-07-02T12:00:00.000Z']);
});

test('day-of-month and day-of-week: OR when both restricted, AND when either is a star', () => {
  // 2024-03-01 is a Friday; the 13th is a Wednesday.
  assert.deepEqual(nextTimes('0 0 13 * 5', '2024-03-01T01:00:00Z', 3), ['2024-03-08T00:00:00.000Z', '2024-03-13T00:00:00.000Z', '2024-03-15T00:00:00.000Z']);
  assert.deepEqual(nextTimes('0 0 * * 5', '2024-03-01T01:00:00Z', 1), ['2024-03-08T00:00:00.000Z']);
  assert.deepEqual(nextTimes('0 0 13 * *', '2024-03-01T01:00:00Z', 1), ['2024-03-13T00:00:00.000Z']);
  // */2 has a step > 1, so it is not a star: ORed with the 13th.
  assert.deepEqual(nextTimes('0 0 13 * */2', '2024-03-01T01:00:00Z', 2), ['2024-03-02T00:00:00.000Z', '2024-03-03T00:00:00.000Z']);
});

test('leap day and month rollover', () => {
  assert.deepEqual(nextTimes('0 0 29 2 *', '2024-03-01T00:00:00Z', 1), ['2028-02-29T00:00:00.000Z']);
  assert.deepEqual(nextTimes('0 0 31 * *', '2024-04-01T00:00:00Z', 1), ['2024-05-31T00:00:00.000Z']);
  assert.equal(parseCronSchedule('0 0 30 2 *').next(at('2024-01-01T00:00:00Z')), undefined);
});

test('time zones, including DST jumps', () => {
  assert.deepEqual(nextTimes('0 9 * * *', '2024-03-01T00:00:00Z', 1, 'Asia/Tokyo'), ['2024-03-02T00:00:00.000Z']);
  assert.deepEqual(nextTimes('0 9 * * *', '2024-03-01T00:00:00Z', 1, 'Europe/Berlin'), ['2024-03-01T08:00:00.000Z']);
  // US spring forward 2024-03-10: 02:30 does not exist and becomes 03:30 EDT.
  assert.deepEqual(nextTimes('30 2 * * *', '2024-03-09T12:00:00Z', 2, 'America/New_York'), ['2024-03-10T07:30:00.000Z', '2024-03-11T06:30:00.000Z']);
  // US fall back 2024-11-03: 01:30 happens twice; the job runs once, at the first.
  assert.deepEqual(nextTimes('30 1 * * *', '2024-11-02T12:00:00Z', 2, 'America/New_York'), ['2024-11-03T05:30:00.000Z', '2024-11-04T06:30:00.000Z']);
  assert.deepEqual(nextTimes('TZ=Asia/Kolkata 0 6 * * *', '2024-03-01T00:00:00Z', 1), ['2024-03-01T00:30:00.000Z']);
  assert.equal(formatRfc3339(at('2024-03-01T00:30:00Z'), 'Asia/Kolkata'), '2024-03-01T06:00:00+05:30');
  assert.equal(formatRfc3339(at('2024-03-01T00:30:00Z'), 'UTC'), '2024-03-01T00:30:00Z');
});

test('@every is a fixed delay', () => {
  assert.deepEqual(nextTimes('@every 1h30m', '2024-03-01T00:00:00.500Z', 2), ['2024-03-01T01:30:00.000Z', '2024-03-01T03:00:00.000Z']);
});

test('invalid schedules throw CronParseError', () => {
  for (const bad of ['', '* * * *', '60 * * * *', '* 24 * * *', '*/0 * * * *', '5-1 * * * *', '@fortnightly', 'x * * * *', '* * * * 7', '1/2/3 * * * *']) {
    assert.throws(() => parseCronSchedule(bad), CronParseError, bad);
  }
  assert.throws(() => parseCronSchedule('* * * * *', 'Mars/Olympus'), CronParseError);
});

test('missed starts: none, one, several, the starting deadline, and too many', () => {
  const every = parseCronSchedule('*/1 * * * *');
  assert.deepEqual(missedStarts(every, at('2024-03-01T10:00:10Z'), at('2024-03-01T10:00:50Z')), { latest: undefined, count: 0, tooMany: false });
  assert.deepEqual(missedStarts(every, at('2024-03-01T10:00:00Z'), at('2024-03-01T10:01:00Z')), { latest: at('2024-03-01T10:01:00Z'), count: 1, tooMany: false });
  assert.deepEqual(missedStarts(every, at('2024-03-01T10:00:00Z'), at('2024-03-01T10:03:30Z')), { latest: at('2024-03-01T10:03:00Z'), count: 3, tooMany: false });
  // A 90 s deadline only looks back to 10:02:00.
  assert.deepEqual(missedStarts(every, at('2024-03-01T10:00:00Z'), at('2024-03-01T10:03:30Z'), 90), { latest: at('2024-03-01T10:03:00Z'), count: 1, tooMany: false });
  const many = missedStarts(every, at('2024-03-01T10:00:00Z'), at('2024-03-01T12:00:30Z'));
  assert.deepEqual(many, { latest: at('2024-03-01T12:00:00Z'), count: 120, tooMany: true });
  // Far behind (a year): still finds the latest start, quickly.
  const started = Date.now();
  const year = missedStarts(every, at('2023-03-01T10:00:00Z'), at('2024-03-01T10:07:30Z'));
  assert.equal(year.latest, at('2024-03-01T10:07:00Z'));
  assert.equal(year.tooMany, true);
  assert.ok(Date.now() - started < 2000);
  const yearly = missedStarts(parseCronSchedule('@yearly'), at('2020-06-01T00:00:00Z'), at('2024-03-01T00:00:00Z'));
  assert.deepEqual(yearly, { latest: at('2024-01-01T00:00:00Z'), count: 4, tooMany: false });
});
