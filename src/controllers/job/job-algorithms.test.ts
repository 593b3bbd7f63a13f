import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { JobBackoffStore, jobBackoffDelay } from './job-backoff.js';
import { formatIndexes, parseIndexes, pendingIndexes, podCompletionIndex } from './completion-index.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { JOB_TRACKING_FINALIZER, newJobPod } from './job-pod.js';
import { setJobCondition } from './job-conditions.js';

test('backoff: 10 s doubling per consecutive failure, capped at 6 min', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7, 50].map((n) => jobBackoffDelay(n)), [0, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 360_000, 360_000]);
});

test('backoff store: counts from the last failure, resets on success', () => {
  const store = new JobBackoffStore();
  assert.equal(store.remaining('a/j', 0), 0);
  store.record('a/j', { failed: 1, succeeded: 0, lastFailureTime: 1000 });
  assert.equal(store.remaining('a/j', 1000), 10_000);
  assert.equal(store.remaining('a/j', 6000), 5000);
  store.record('a/j', { failed: 1, succeeded: 0, lastFailureTime: 12_000 });
  assert.equal(store.remaining('a/j', 12_000), 20_000);
  assert.equal(store.remaining('a/j', 40_000), 0);
  store.record('a/j', { failed: 0, succeeded: 1 });
  assert.equal(store.remaining('a/j', 12_000), 0);
  store.record('a/j', { failed: 2, succeeded: 0, lastFailureTime: 0 });
  assert.equal(store.remaining('a/j', 0), 20_000);
});

test('completed indexes: parse, format, pending', () => {
  assert.deepEqual([...parseIndexes('1,3-5,7,junk,9-12', 11)].sort((a, b) => a - b), [1, 3, 4, 5, 7, 9, 10]);
  assert.equal(formatIndexes([7, 3, 1, 4, 5, 5]), '1,3-5,7');
  assert.equal(formatIndexes([]), '');
  assert.deepEqual(pendingIndexes(6, new Set([0, 2]), new Set([1]), 2), [3, 4]);
  assert.deepEqual(pendingIndexes(3, new Set([0, 1, 2]), new Set(), 2), []);
  const pod: Pod = { metadata: { annotations: { 'batch.kubernetes.io/job-completion-index': '3' } } };
  assert.equal(podCompletionIndex(pod), 3);
  assert.equal(podCompletionIndex({ metadata: { annotations: { 'batch.kubernetes.io/job-completion-index': '03' } } }), undefined);
});

const failedPod = (exitCode: number, conditions: { type: string; status: string }[] = []): Pod => ({
  metadata: { namespace: 'ns', name: 'p' },
  status: { phase: 'Failed', conditions, containerStatuses: [{ name: 'main', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode } } }] },
});

test('pod failure policy: first matching rule wins; exit code 0 never matches', () => {
  const policy = {
    rules: [
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
      { action: 'Count', onExitCodes: { operator: 'NotIn', values: [1, 2] } },
    ],
  };
  assert.deepEqual(matchPodFailurePolicy(policy, failedPod(42)), { action: 'FailJob', message: 'Container main for pod ns/p failed with exit code 42 matching FailJob rule at index 1' });
  assert.equal(matchPodFailurePolicy(policy, failedPod(42, [{ type: 'DisruptionTarget', status: 'True' }]))?.action, 'Ignore');
  assert.equal(matchPodFailurePolicy(policy, failedPod(7))?.action, 'Count');
  assert.equal(matchPodFailurePolicy(policy, failedPod(1)), undefined);
  assert.equal(matchPodFailurePolicy({ rules: [{ action: 'FailJob', onExitCodes: { operator: 'NotIn', values: [1] } }] }, failedPod(0)), undefined);
  assert.equal(matchPodFailurePolicy(undefined, failedPod(42)), undefined);
});

test('job pods: owner, finalizer, and for Indexed the index annotation, env and hostname', () => {
  const job: Job = {
    metadata: { name: 'pi', namespace: 'ns', uid: 'u1' },
    spec: { completionMode: 'Indexed', template: { metadata: { labels: { 'job-name': 'pi' } }, spec: { containers: [{ name: 'c', env: [{ name: 'A', value: '1' }] }] } } },
  };
  const pod = newJobPod(job, 2);
  assert.equal(pod.metadata?.generateName, 'pi-2-');
  assert.equal(pod.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'], '2');
  assert.deepEqual(pod.metadata?.finalizers, [JOB_TRACKING_FINALIZER]);
  assert.equal(pod.metadata?.ownerReferences?.[0].uid, 'u1');
  assert.equal(pod.metadata?.ownerReferences?.[0].controller, true);
  assert.equal(pod.spec?.hostname, 'pi-2');
  assert.deepEqual(pod.spec?.containers[0].env?.map((e) => e.name), ['A', 'JOB_COMPLETION_INDEX']);
  assert.equal(job.spec?.template.spec?.containers[0].env?.length, 1, 'the template is not changed');
  const plain = newJobPod({ ...job, spec: { ...job.spec!, completionMode: 'NonIndexed' } });
  assert.equal(plain.metadata?.generateName, 'pi-');
  assert.equal(plain.spec?.hostname, undefined);
});

test('conditions keep their transition time while the status holds', () => {
  const status = {};
  assert.equal(setJobCondition(status, 'Suspended', 'True', 'JobSuspended', 'Job suspended', Date.parse('2024-01-01T00:00:00Z')), true);
  assert.equal(setJobCondition(status, 'Suspended', 'True', 'JobSuspended', 'Job suspended', Date.parse('2024-01-01T00:05:00Z')), false);
  setJobCondition(status, 'Suspended', 'False', 'JobResumed', 'Job resumed', Date.parse('2024-01-01T00:06:00Z'));
  assert.deepEqual((status as { conditions: { lastTransitionTime: string; status: string }[] }).conditions.map((c) => [c.status, c.lastTransitionTime]), [['False', '2024-01-01T00:06:00Z']]);
});
