import { FakeClock } from '../../base/fake-clock.js';
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { Event } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../client/rest/client.js';
import { TestObjects } from '../../testing/objects.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { Lister } from '../../client/cache/lister.js';
import { EventRecorder } from '../../client/events/event-recorder.js';
import { CronJobReconciler } from './cronjob-reconciler.js';
import { CRON_JOBS, EVENTS, JOBS } from '../../api/resource-refs.js';

let api: TestApiServer;
let objects: TestObjects;
let client: Client;
let recorder: EventRecorder;
let clock: FakeClock;
let reconciler: CronJobReconciler;
const cronJobIndex = new MapIndexer<CronJob>();
const jobIndex = new MapIndexer<Job>();

beforeEach(async () => {
  api = await startTestApiServer({ namespaces: ['ns'] });
  client = api.client;
  objects = new TestObjects(client);
  recorder = new EventRecorder({ client, component: 'cronjob-controller' });
  clock = new FakeClock('2024-03-01T10:00:30Z');
  reconciler = new CronJobReconciler({ client, cronJobs: new Lister(cronJobIndex), jobs: new Lister(jobIndex), recorder, clock });
});
afterEach(async () => {
  await recorder.stop();
  await api.stop();
});

/** The server stamps creation with the wall clock; the tests' clock starts at this time. */
const CREATED = '2024-03-01T10:00:00Z';

/** Mirrors the server into the listers, as informers would. */
async function syncCaches(): Promise<void> {
  const cronJobs = (await objects.list<CronJob>(CRON_JOBS)).map((cj) => ({ ...cj, metadata: { ...cj.metadata, creationTimestamp: CREATED } }));
  cronJobIndex.replace(cronJobs, '');
  jobIndex.replace(await objects.list<Job>(JOBS), '');
}

async function reconcile() {
  await syncCaches();
  const result = await reconciler.reconcile('ns/every');
  await syncCaches();
  return result;
}

function putCronJob(spec: Partial<CronJob['spec']>, status: CronJob['status'] = {}): Promise<CronJob> {
  return objects.put(CRON_JOBS, {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'every', namespace: 'ns', creationTimestamp: CREATED },
    spec: { schedule: '*/1 * * * *', concurrencyPolicy: 'Allow', successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1, jobTemplate: { metadata: { labels: { team: 'a' } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } } }, ...spec },
    status,
  } as CronJob);
}

const jobs = (): Promise<Job[]> => objects.list<Job>(JOBS);
const cronJob = async (): Promise<CronJob> => (await objects.list<CronJob>(CRON_JOBS))[0]!;
const events = (): Promise<Event[]> => objects.list<Event>(EVENTS);

async function finish(name: string, type: 'Complete' | 'Failed', at: string): Promise<void> {
  const job = (await jobs()).find((j) => j.metadata?.name === name)!;
  await objects.put(JOBS, { ...job, status: { conditions: [{ type, status: 'True' }], startTime: at, completionTime: type === 'Complete' ? at : undefined } } as Job);
}

test('waits for the first start, then creates the job named after the scheduled minute', async () => {
  await putCronJob({});
  const first = await reconcile();
  assert.equal((await jobs()).length, 0);
  assert.equal(first?.requeueAfter, 30_000 + 100, 'wakes just after 10:01');
  clock.set('2024-03-01T10:01:00.200Z');
  await reconcile();
  assert.deepEqual((await jobs()).map((j) => j.metadata?.name), [`every-${Date.parse('2024-03-01T10:01:00Z') / 60_000}`]);
  const job = (await jobs())[0];
  assert.equal(job.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2024-03-01T10:01:00Z');
  assert.equal(job.metadata?.labels?.team, 'a');
  assert.equal(job.metadata?.ownerReferences?.[0].kind, 'CronJob');
  assert.equal((await cronJob()).status?.lastScheduleTime, '2024-03-01T10:01:00Z');
  assert.deepEqual((await cronJob()).status?.active?.map((r) => r.name), [job.metadata?.name]);
  await reconcile();
  assert.equal((await jobs()).length, 1, 'a start is never run twice');
});

test('many missed starts: a warning, and only the latest runs', async () => {
  await putCronJob({}, { lastScheduleTime: '2024-03-01T07:00:00Z' });
  clock.set('2024-03-01T10:00:30Z');
  await reconcile();
  assert.deepEqual((await jobs()).map((j) => j.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']), ['2024-03-01T10:00:00Z']);
  await recorder.flush();
  const reasons = (await events()).map((e) => e.reason);
  assert.ok(reasons.includes('TooManyMissedTimes'), reasons.join());
  assert.ok(reasons.includes('SuccessfulCreate'));
});

test('startingDeadlineSeconds: a start later than the deadline is skipped', async () => {
  await putCronJob({ schedule: '0 * * * *', startingDeadlineSeconds: 10 }, { lastScheduleTime: '2024-03-01T09:00:00Z' });
  clock.set('2024-03-01T10:00:30Z');
  const r = await reconcile();
  assert.equal((await jobs()).length, 0);
  assert.equal(r?.requeueAfter, Date.parse('2024-03-01T11:00:00Z') - clock.now() + 100);
});

test('concurrency policies: Forbid skips, Replace deletes the running job, Allow runs both', async () => {
  for (const policy of ['Forbid', 'Replace', 'Allow'] as const) {
    for (const j of await jobs()) await objects.erase(JOBS, 'ns', j.metadata!.name!);
    await putCronJob({ concurrencyPolicy: policy }, {});
    clock.set('2024-03-01T10:01:00.100Z');
    await reconcile();
    const firstName = (await jobs())[0].metadata?.name;
    clock.set('2024-03-01T10:02:00.100Z');
    await reconcile();
    const names = (await jobs()).map((j) => j.metadata?.name).sort();
    if (policy === 'Forbid') assert.deepEqual(names, [firstName], policy);
    if (policy === 'Replace') assert.deepEqual(names, [`every-${Date.parse('2024-03-01T10:02:00Z') / 60_000}`], policy);
    if (policy === 'Allow') assert.equal(names.length, 2, policy);
    assert.equal((await cronJob()).status?.active?.length, policy === 'Allow' ? 2 : 1, policy);
  }
});

test('suspend stops new jobs; finished jobs leave active, set lastSuccessfulTime and are pruned to the history limits', async () => {
  await putCronJob({ suspend: true, successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 0 });
  clock.set('2024-03-01T10:05:00.100Z');
  await reconcile();
  assert.equal((await jobs()).length, 0, 'suspended');
  await putCronJob({ successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 0 }, { lastScheduleTime: '2024-03-01T10:00:00Z' });
  for (const minute of ['01', '02', '03']) {
    clock.set(`2024-03-01T10:${minute}:00.100Z`);
    await reconcile();
  }
  assert.equal((await jobs()).length, 3);
  const [a, b, c] = (await jobs()).map((j) => j.metadata!.name!).sort();
  await finish(a, 'Complete', '2024-03-01T10:01:30Z');
  await finish(b, 'Complete', '2024-03-01T10:02:30Z');
  await finish(c, 'Failed', '2024-03-01T10:03:30Z');
  clock.set('2024-03-01T10:03:40Z');
  await reconcile();
  assert.deepEqual((await jobs()).map((j) => j.metadata?.name), [b], 'one success kept, no failure kept');
  assert.equal((await cronJob()).status?.active, undefined);
  assert.equal((await cronJob()).status?.lastSuccessfulTime, '2024-03-01T10:02:30Z');
  await recorder.flush();
  assert.ok((await events()).some((e) => e.reason === 'SawCompletedJob' && e.message === `Saw completed job: ${c}, condition: Failed`));
});

test('time zone: the schedule runs on the zone wall clock', async () => {
  await putCronJob({ schedule: '30 10 * * *', timeZone: 'Asia/Kolkata' }, { lastScheduleTime: '2024-03-01T00:00:00Z' });
  clock.set('2024-03-01T05:00:30Z'); // 10:30:30 in India
  await reconcile();
  assert.deepEqual((await jobs()).map((j) => j.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']), ['2024-03-01T10:30:00+05:30']);
});
