import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { FakeClock } from '../../base/fake-clock.js';
import { Lister } from '../../client/cache/lister.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { EventRecorder } from '../../client/events/event-recorder.js';
import { TestObjects } from '../../testing/objects.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { JOBS, PODS } from '../../api/resource-refs.js';
import { PodExpectations } from '../history/pod-expectations.js';
import { formatIndexes, parseIndexes, podCompletionIndex } from './completion-index.js';
import { isIndexFailed, matchSuccessPolicy, replacementFailureCounts } from './indexed-policies.js';
import { JobReconciler } from './job-reconciler.js';

test('success policy rules: all listed indexes, or succeededCount of them, or a bare count', () => {
  const done = new Set([0, 1, 2, 4, 5, 6, 7]);
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '0-2' }] }, 10, done), 'Matched rules at index 0');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '2-3' }] }, 10, done), undefined);
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '2-3' }, { succeededIndexes: '3-9', succeededCount: 4 }] }, 10, done), 'Matched rules at index 1');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 8 }, { succeededCount: 7 }] }, 10, done), 'Matched rules at index 1');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: 'junk' }] }, 10, done), undefined);
  assert.equal(matchSuccessPolicy(undefined, 10, done), undefined);
  assert.equal(formatIndexes([0, 1, 3, 4, 5]), '0,1,3-5', 'two in a row are listed, as upstream');
});

test('index failures: the replacement carries the count; the limit or FailIndex fails the index', () => {
  const job: Job = { spec: { completionMode: 'Indexed', completions: 2, backoffLimitPerIndex: 1, template: {} } };
  const failed = (count?: string, exitCode = 1): Pod => ({
    metadata: { annotations: { 'batch.kubernetes.io/job-completion-index': '0', ...(count === undefined ? {} : { 'batch.kubernetes.io/job-index-failure-count': count }) } },
    status: { phase: 'Failed', containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode } } }] },
  });
  assert.deepEqual(replacementFailureCounts(job, undefined), { 'batch.kubernetes.io/job-index-failure-count': '0' });
  assert.deepEqual(replacementFailureCounts(job, failed('0')), { 'batch.kubernetes.io/job-index-failure-count': '1' });
  assert.equal(isIndexFailed(job, failed('0')), false);
  assert.equal(isIndexFailed(job, failed('1')), true);
  assert.equal(isIndexFailed(job, failed('junk')), false, 'a malformed count is 0');
  const policy: Job = { spec: { ...job.spec!, podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [42] } }, { action: 'Ignore', onExitCodes: { operator: 'In', values: [7] } }] } } };
  assert.equal(isIndexFailed(policy, failed('0', 42)), true);
  assert.equal(isIndexFailed(policy, failed('5', 7)), false);
  assert.deepEqual(replacementFailureCounts(policy, failed('0', 7)), { 'batch.kubernetes.io/job-index-failure-count': '0', 'batch.kubernetes.io/job-index-ignored-failure-count': '1' });
});

let api: TestApiServer;
let objects: TestObjects;
let recorder: EventRecorder;
let clock: FakeClock;
let reconciler: JobReconciler;
const jobIndex = new MapIndexer<Job>();
const podIndex = new MapIndexer<Pod>();

beforeEach(async () => {
  api = await startTestApiServer({ namespaces: ['ns'] });
  objects = new TestObjects(api.client);
  recorder = new EventRecorder({ client: api.client, component: 'job-controller' });
  clock = new FakeClock('2026-01-01T10:00:00Z');
  reconciler = new JobReconciler({ client: api.client, jobs: new Lister(jobIndex), pods: new Lister(podIndex), expectations: new PodExpectations(clock), recorder, clock });
});
afterEach(async () => {
  await recorder.stop();
  await api.stop();
});

async function reconcile(): Promise<number | undefined> {
  jobIndex.replace(await objects.list<Job>(JOBS), '');
  podIndex.replace(await objects.list<Pod>(PODS), '');
  const result = await reconciler.reconcile('ns/work');
  return result ? result.requeueAfter : undefined;
}

const job = async (): Promise<Job> => api.client.resource<Job>(JOBS).namespace('ns').get('work');
const livePods = async (): Promise<Pod[]> => (await objects.list<Pod>(PODS)).filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded');
const indexOf = (p: Pod) => podCompletionIndex(p);

async function finish(pod: Pod, phase: 'Failed' | 'Succeeded'): Promise<void> {
  const exitCode = phase === 'Failed' ? 1 : 0;
  await objects.put(PODS, { ...pod, status: { phase, containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, finishedAt: new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z') } } }] } } as Pod);
}

function putJob(spec: Partial<Job['spec']>): Promise<Job> {
  return objects.put<Job>(JOBS, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'work', namespace: 'ns' },
    spec: { completionMode: 'Indexed', template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } }, ...spec },
  } as Job);
}

test('backoffLimitPerIndex: an index backs off and retries on its own, then fails alone; the Job fails with FailedIndexes', async () => {
  await putJob({ completions: 2, parallelism: 2, backoffLimitPerIndex: 1 });
  await reconcile();
  let pods = await livePods();
  assert.deepEqual(pods.map(indexOf).sort(), [0, 1]);
  assert.ok(pods.every((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count'] === '0'));

  await finish(pods.find((p) => indexOf(p) === 0)!, 'Failed');
  await reconcile();
  const wait = await reconcile();
  assert.equal((await job()).status?.failedIndexes, '', 'one failure is within the index\'s limit');
  assert.equal((await livePods()).length, 1, 'index 0 waits out its backoff');
  assert.ok(wait !== undefined && wait > 0 && wait <= 10_000, `requeued for the index's backoff (${wait})`);

  clock.set(clock.now() + 10_001);
  await reconcile();
  pods = await livePods();
  const retry = pods.find((p) => indexOf(p) === 0)!;
  assert.equal(retry.metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count'], '1');

  await finish(retry, 'Failed');
  await reconcile();
  assert.equal((await job()).status?.failedIndexes, '0');
  await finish(pods.find((p) => indexOf(p) === 1)!, 'Succeeded');
  for (let i = 0; i < 3; i++) await reconcile();
  const done = await job();
  assert.equal(done.status?.completedIndexes, '1');
  assert.equal(done.status?.failedIndexes, '0');
  assert.equal(done.status?.failed, 2);
  assert.equal((await livePods()).length, 0, 'the failed index is not retried again');
  const failedCond = done.status?.conditions?.find((c) => c.type === 'Failed');
  assert.equal(failedCond?.reason, 'FailedIndexes');
  assert.equal(failedCond?.message, 'Job has failed indexes');
});

test('maxFailedIndexes: one failed index too many fails the Job at once', async () => {
  await putJob({ completions: 3, parallelism: 3, backoffLimitPerIndex: 0, maxFailedIndexes: 0 });
  await reconcile();
  await finish((await livePods()).find((p) => indexOf(p) === 2)!, 'Failed');
  for (let i = 0; i < 4; i++) await reconcile();
  const j = await job();
  // index 2 failed; the indexes whose pods were stopped for the Job's failure count as failed too (terminating pods are failures)
  assert.ok(parseIndexes(j.status?.failedIndexes, 3).has(2), j.status?.failedIndexes);
  const cond = j.status?.conditions?.find((c) => c.type === 'Failed');
  assert.equal(cond?.reason, 'MaxFailedIndexesExceeded');
  assert.equal(cond?.message, 'Job has exceeded the specified maximal number of failed indexes');
});

test('successPolicy: the leader index succeeding completes the Job and stops the rest', async () => {
  await putJob({ completions: 3, parallelism: 3, successPolicy: { rules: [{ succeededIndexes: '0' }] } });
  await reconcile();
  await finish((await livePods()).find((p) => indexOf(p) === 0)!, 'Succeeded');
  await reconcile();
  const met = (await job()).status?.conditions?.find((c) => c.type === 'SuccessCriteriaMet');
  assert.equal(met?.reason, 'SuccessPolicy');
  assert.equal(met?.message, 'Matched rules at index 0');
  for (let i = 0; i < 3; i++) await reconcile();
  const j = await job();
  const complete = j.status?.conditions?.find((c) => c.type === 'Complete');
  assert.equal(complete?.status, 'True');
  assert.equal(complete?.reason, 'SuccessPolicy');
  assert.equal(j.status?.completedIndexes, '0');
  assert.equal((await livePods()).length, 0);
});
