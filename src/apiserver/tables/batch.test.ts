import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/object.js';
import { cronJobTable, jobTable } from './batch.js';

const NOW = new Date('2024-05-01T12:00:00Z');
const meta = { name: 'pi', creationTimestamp: '2024-05-01T11:50:00Z' };
const template = { spec: { containers: [{ name: 'pi', image: 'perl' }] } };
const job = (spec: object, status: object, metadata: object = meta) => ({ metadata, spec: { template, ...spec }, status }) as KubeObject;

void test('job status follows upstream precedence', () => {
  const cond = (type: string, status = 'True') => ({ type, status });
  const status = (...conditions: object[]) => jobTable.cells(job({}, { conditions }), NOW)[1];
  assert.equal(status(), 'Running');
  assert.equal(status(cond('Complete')), 'Complete');
  assert.equal(status(cond('Failed')), 'Failed');
  assert.equal(status(cond('Suspended')), 'Suspended');
  assert.equal(status(cond('FailureTarget')), 'FailureTarget');
  assert.equal(status(cond('Complete', 'False'), cond('Suspended')), 'Suspended');
  assert.equal(status(cond('SuccessCriteriaMet'), cond('Complete')), 'Complete');
  const deleting = job({}, { conditions: [cond('Suspended')] }, { ...meta, deletionTimestamp: '2024-05-01T12:00:00Z' });
  assert.equal(jobTable.cells(deleting, NOW)[1], 'Terminating');
});

void test('job completions and duration', () => {
  const done = job(
    { completions: 1, parallelism: 1, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u1' } } },
    { succeeded: 1, startTime: '2024-05-01T11:50:00Z', completionTime: '2024-05-01T11:50:07Z', conditions: [{ type: 'Complete', status: 'True' }] },
  );
  assert.deepEqual(jobTable.cells(done, NOW), ['pi', 'Complete', '1/1', '7s', '10m', 'pi', 'perl', 'batch.kubernetes.io/controller-uid=u1']);

  const running = job({ completions: 5, parallelism: 2 }, { succeeded: 2, startTime: '2024-05-01T11:57:30Z' });
  assert.deepEqual(jobTable.cells(running, NOW).slice(1, 4), ['Running', '2/5', '2m30s']);

  assert.equal(jobTable.cells(job({ parallelism: 3 }, {}), NOW)[2], '0/1 of 3');
  assert.equal(jobTable.cells(job({}, { succeeded: 1 }), NOW)[2], '1/1');
  assert.equal(jobTable.cells(job({}, {}), NOW)[3], '');
});

void test('cron job cells', () => {
  const cj = {
    metadata: meta,
    spec: { schedule: '*/5 * * * *', suspend: false, jobTemplate: { spec: { template } } },
    status: { active: [{ name: 'pi-1' }], lastScheduleTime: '2024-05-01T11:55:00Z' },
  } as KubeObject;
  assert.deepEqual(cronJobTable.cells(cj, NOW), ['pi', '*/5 * * * *', '<none>', 'False', 1, '5m', '10m', 'pi', 'perl', '<none>']);

  const tz = { metadata: meta, spec: { schedule: '@hourly', timeZone: 'Europe/Paris', suspend: true } } as KubeObject;
  assert.deepEqual(cronJobTable.cells(tz, NOW).slice(1, 6), ['@hourly', 'Europe/Paris', 'True', 0, '<none>']);
  assert.equal(cronJobTable.cells({ metadata: meta, spec: {} } as KubeObject, NOW)[3], '<unset>');
  assert.deepEqual(
    cronJobTable.columns.map((c) => c.name),
    ['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers', 'Images', 'Selector'],
  );
});
