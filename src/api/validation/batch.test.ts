import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job, JobSpec } from 'kubernetes-types/batch/v1.js';
import { generateJobSelector } from '../defaults/index.js';
import { cronScheduleError } from './cron-schedule.js';
import { messagesFor, updateMessagesFor } from './test-support.js';

function job(spec: Record<string, unknown>): Job {
  const j: Job = { kind: 'Job', metadata: { name: 'j', namespace: 'default', uid: 'u-1', resourceVersion: '1' }, spec: spec as unknown as JobSpec };
  generateJobSelector(j);
  return j;
}
const tmpl = (restartPolicy?: string) => ({ spec: { containers: [{ name: 'a', image: 'busybox' }], ...(restartPolicy ? { restartPolicy } : {}) } });

test('job template restartPolicy must be OnFailure or Never', () => {
  assert.deepEqual(messagesFor(job({ template: tmpl('Never') }), 'batch'), []);
  assert.deepEqual(messagesFor(job({ template: tmpl() }), 'batch'), [
    'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
  ]);
});

test('job selector and template are immutable', () => {
  const old = job({ template: tmpl('Never') });
  const next = structuredClone(old);
  next.spec!.template.spec!.containers[0].image = 'busybox:2';
  const msgs = updateMessagesFor(next, old, 'batch');
  assert.equal(msgs.length, 1);
  assert.match(msgs[0], /^spec\.template: Invalid value: .*: field is immutable$/);
});

test('cron schedules follow robfig/cron ParseStandard', () => {
  assert.equal(cronScheduleError('*/5 * * * *'), undefined);
  assert.equal(cronScheduleError('@hourly'), undefined);
  assert.equal(cronScheduleError('0 0 * JAN-MAR MON'), undefined);
  assert.equal(cronScheduleError('* * * *'), 'expected exactly 5 fields, found 4: [* * * *]');
  assert.equal(cronScheduleError('60 * * * *'), 'end of range (60) above maximum (59): 60');
  assert.equal(cronScheduleError('@often'), 'unrecognized descriptor: @often');
  assert.equal(cronScheduleError('*/0 * * * *'), 'step of range should be a positive number: */0');
});

test('cronjob schedule, time zone and name length', () => {
  const cj = (schedule: string, extra: Record<string, unknown> = {}, name = 'c') => ({
    kind: 'CronJob',
    metadata: { name, namespace: 'default' },
    spec: { schedule, jobTemplate: { spec: { template: tmpl('OnFailure') } }, ...extra },
  });
  assert.deepEqual(messagesFor(cj('0 * * * *'), 'batch'), []);
  assert.deepEqual(messagesFor(cj(''), 'batch'), ['spec.schedule: Required value']);
  assert.deepEqual(messagesFor(cj('bad'), 'batch'), ['spec.schedule: Invalid value: "bad": expected exactly 5 fields, found 1: [bad]']);
  assert.deepEqual(messagesFor(cj('TZ=UTC 0 * * * *'), 'batch'), [
    'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
  ]);
  assert.deepEqual(messagesFor(cj('0 * * * *', { timeZone: 'Mars/Olympus' }), 'batch'), ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus']);
  assert.deepEqual(messagesFor(cj('0 * * * *', { timeZone: 'Europe/Berlin' }), 'batch'), []);
  assert.deepEqual(messagesFor(cj('0 * * * *', {}, 'c'.repeat(53)), 'batch'), [`metadata.name: Invalid value: "${'c'.repeat(53)}": must be no more than 52 characters`]);
});

test('backoffLimitPerIndex, maxFailedIndexes and successPolicy are for Indexed Jobs, with upstream\'s messages', () => {
  const indexed = { template: tmpl('Never'), completionMode: 'Indexed', completions: 3 };
  assert.deepEqual(messagesFor(job({ ...indexed, backoffLimitPerIndex: 1, maxFailedIndexes: 1, successPolicy: { rules: [{ succeededIndexes: '0,2-3' }, { succeededCount: 2 }] } }), 'batch'), []);
  assert.deepEqual(messagesFor(job({ template: tmpl('Never'), backoffLimitPerIndex: 1, successPolicy: { rules: [{ succeededCount: 1 }] } }), 'batch'), [
    'spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode',
    'spec.successPolicy: Invalid value: {"rules":[{"succeededCount":1}]}: requires indexed completion mode',
  ]);
  assert.deepEqual(messagesFor(job({ ...indexed, maxFailedIndexes: 4 }), 'batch'), [
    'spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified',
    'spec.maxFailedIndexes: Invalid value: 4: must be less than or equal to completions',
  ]);
  assert.deepEqual(messagesFor(job({ ...indexed, successPolicy: { rules: [{}, { succeededCount: 5 }, { succeededIndexes: 'x' }] } }), 'batch'), [
    'spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified',
    'spec.successPolicy.rules[1].succeededCount: Invalid value: 5: must be less than or equal to 3 (the number of specified completions)',
    'spec.successPolicy.rules[2].succeededIndexes: Invalid value: "x": error parsing succeededIndexes: not a comma-separated list of indexes and index ranges',
  ]);
});
