import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { Event } from 'kubernetes-types/core/v1.js';
import { FakeApiServer } from '../../client/testing/fake-api-server.js';
import { Client } from '../../client/rest/client.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { Lister } from '../../client/cache/lister.js';
import { EventRecorder } from '../../client/events/event-recorder.js';
import { CronJobReconciler } from './cronjob-reconciler.js';

let server: FakeApiServer;
let client: Client;
let recorder: EventRecorder;
let clock: number;
let reconciler: CronJobReconciler;
const cronJobIndex = new MapIndexer<CronJob>();
const jobIndex = new MapIndexer<Job>();

beforeEach(async () => {
  server = new FakeApiServer();
  client = new Client({ server: await server.start(), qps: -1 });
  recorder = new EventRecorder({ client, component: 'cronjob-controller' });
  clock = Date.parse('2024-03-01T10:00:30Z');
  reconciler = new CronJobReconciler({ client, cronJobs: new Lister(cronJobIndex), jobs: new Lister(jobIndex), recorder, now: () => clock });
});
afterEach(async () => {
  await recorder.stop();
  client.close();
  await server.close();
});

/** Mirrors the fake server into the listers, as informers would. */
function syncCaches(): void {
  cronJobIndex.replace(server.stored('batch/cronjobs') as CronJob[], '');
  jobIndex.replace(server.stored('batch/jobs') as Job[], '');
}

async function reconcile() {
  syncCaches();
  const result = await reconciler.reconcile('ns/every');
  syncCaches();
  return result;
}

function putCronJob(spec: Partial<CronJob['spec']>, status: CronJob['status'] = {}): CronJob {
  return server.put('batch/cronjobs', {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'every', namespace: 'ns', creationTimestamp: '2024-03-01T10:00:00Z' },
    spec: { schedule: '*/1 * * * *', concurrencyPolicy: 'Allow', successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1, jobTemplate: { metadata: { labels: { team: 'a' } }, spec: { template: { spec: { containers: [] } } } }, ...spec },
    status,
  } as CronJob) as CronJob;
}

const jobs = (): Job[] => server.stored('batch/jobs') as Job[];
const cronJob = (): CronJob => server.stored('batch/cronjobs')[0] as CronJob;

function finish(name: string, type: 'Complete' | 'Failed', at: string): void {
  const job = jobs().find((j) => j.metadata?.name === name)!;
  server.put('batch/jobs', { ...job, status: { conditions: [{ type, status: 'True' }], startTime: at, completionTime: type === 'Complete' ? at : undefined } } as Job);
}

test('waits for the first start, then creates the job named after the scheduled minute', async () => {
  putCronJob({});
  const first = await reconcile();
  assert.equal(jobs().length, 0);
  assert.equal(first?.requeueAfter, 30_000 + 100, 'wakes just after 10:01');
  clock = Date.parse('2024-03-01T10:01:00.200Z');
  await reconcile();
  assert.deepEqual(jobs().map((j) => j.metadata?.name), [`every-${Date.parse('2024-03-01T10:01:00Z') / 60_000}`]);
  const job = jobs()[0];
  assert.equal(job.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2024-03-01T10:01:00Z');
  assert.equal(job.metadata?.labels?.team, 'a');
  assert.equal(job.metadata?.ownerReferences?.[0].kind, 'CronJob');
  assert.equal(cronJob().status?.lastScheduleTime, '2024-03-01T10:01:00Z');
  assert.deepEqual(cronJob().status?.active?.map((r) => r.name), [job.metadata?.name]);
  await reconcile();
  assert.equal(jobs().length, 1, 'a start is never run twice');
});

test('many missed starts: a warning, and only the latest runs', async () => {
  putCronJob({}, { lastScheduleTime: '2024-03-01T07:00:00Z' });
  clock = Date.parse('2024-03-01T10:00:30Z');
  await reconcile();
  assert.deepEqual(jobs().map((j) => j.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']), ['2024-03-01T10:00:00Z']);
  await recorder.flush();
  const reasons = (server.stored('/events') as unknown as Event[]).map((e) => e.reason);
  assert.ok(reasons.includes('TooManyMissedTimes'), reasons.join());
  assert.ok(reasons.includes('SuccessfulCreate'));
});

test('startingDeadlineSeconds: a start later than the deadline is skipped', async () => {
  putCronJob({ schedule: '0 * * * *', startingDeadlineSeconds: 10 }, { lastScheduleTime: '2024-03-01T09:00:00Z' });
  clock = Date.parse('2024-03-01T10:00:30Z');
  const r = await reconcile();
  assert.equal(jobs().length, 0);
  assert.equal(r?.requeueAfter, Date.parse('2024-03-01T11:00:00Z') - clock + 100);
});

test('concurrency policies: Forbid skips, Replace deletes the running job, Allow runs both', async () => {
  for (const policy of ['Forbid', 'Replace', 'Allow'] as const) {
    for (const j of jobs()) server.erase('batch/jobs', 'ns', j.metadata!.name!);
    putCronJob({ concurrencyPolicy: policy }, {});
    clock = Date.parse('2024-03-01T10:01:00.100Z');
    await reconcile();
    const firstName = jobs()[0].metadata?.name;
    clock = Date.parse('2024-03-01T10:02:00.100Z');
    await reconcile();
    const names = jobs().map((j) => j.metadata?.name).sort();
    if (policy === 'Forbid') assert.deepEqual(names, [firstName], policy);
    if (policy === 'Replace') assert.deepEqual(names, [`every-${Date.parse('2024-03-01T10:02:00Z') / 60_000}`], policy);
    if (policy === 'Allow') assert.equal(names.length, 2, policy);
    assert.equal(cronJob().status?.active?.length, policy === 'Allow' ? 2 : 1, policy);
  }
});

test('suspend stops new jobs; finished jobs leave active, set lastSuccessfulTime and are pruned to the history limits', async () => {
  putCronJob({ suspend: true, successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 0 });
  clock = Date.parse('2024-03-01T10:05:00.100Z');
  await reconcile();
  assert.equal(jobs().length, 0, 'suspended');
  putCronJob({ successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 0 }, { lastScheduleTime: '2024-03-01T10:00:00Z' });
  for (const minute of ['01', '02', '03']) {
    clock = Date.parse(`2024-03-01T10:${minute}:00.100Z`);
    await reconcile();
  }
  assert.equal(jobs().length, 3);
  const [a, b, c] = jobs().map((j) => j.metadata!.name!).sort();
  finish(a, 'Complete', '2024-03-01T10:01:30Z');
  finish(b, 'Complete', '2024-03-01T10:02:30Z');
  finish(c, 'Failed', '2024-03-01T10:03:30Z');
  clock = Date.parse('2024-03-01T10:03:40Z');
  await reconcile();
  assert.deepEqual(jobs().map((j) => j.metadata?.name), [b], 'one success kept, no failure kept');
  assert.equal(cronJob().status?.active, undefined);
  assert.equal(cronJob().status?.lastSuccessfulTime, '2024-03-01T10:02:30Z');
  await recorder.flush();
  assert.ok((server.stored('/events') as unknown as Event[]).some((e) => e.reason === 'SawCompletedJob' && e.message === `Saw completed job: ${c}, condition: Failed`));
});

test('time zone: the schedule runs on the zone wall clock', async () => {
  putCronJob({ schedule: '30 10 * * *', timeZone: 'Asia/Kolkata' }, { lastScheduleTime: '2024-03-01T00:00:00Z' });
  clock = Date.parse('2024-03-01T05:00:30Z'); // 10:30:30 in India
  await reconcile();
  assert.deepEqual(jobs().map((j) => j.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']), ['2024-03-01T10:30:00+05:30']);
});
