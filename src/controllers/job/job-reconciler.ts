import type { Job, JobStatus } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Client } from '../../client/rest/client.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { labelSelectorFromObject } from '../../machinery/labels/index.js';
import { claimObjects } from '../claim-objects.js';
import { isPodReady } from '../pod-readiness.js';
import { slowStartBatch } from '../slow-start-batch.js';
import type { PodExpectations } from '../history/pod-expectations.js';
import { cachedPodState, isPodFinished, isPodTerminating, metaTime } from '../history/pod-state.js';
import { stableStringify } from '../history/revision-hash.js';
import { JobBackoffStore } from './job-backoff.js';
import { formatIndexes, parseIndexes, pendingIndexes, podCompletionIndex } from './completion-index.js';
import { hasTrueCondition, isJobFinished, jobCondition, JobReasons, setJobCondition } from './job-conditions.js';
import { JOB_TRACKING_FINALIZER, newJobPod } from './job-pod.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { hasBackoffLimitPerIndex, indexBackoffRemaining, isIndexFailed, lastFailedPodPerIndex, matchSuccessPolicy, replacementFailureCounts } from './indexed-policies.js';
import { JOBS, PODS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

export interface JobReconcilerOptions {
  client: Client;
  jobs: Lister<Job>;
  pods: Lister<Pod>;
  expectations: PodExpectations;
  recorder: EventRecorder;
  backoff?: JobBackoffStore;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

interface Outcome {
  reason: string;
  message: string;
}

/**
 * The Job controller: runs pods until enough succeed (Complete) or the Job
 * gives up (Failed: backoff limit, deadline, pod failure policy). Finished
 * pods are counted through `uncountedTerminatedPods` before their tracking
 * finalizer is removed, so no pod is ever counted twice or lost.
 */
export class JobReconciler implements Reconciler {
  private readonly backoff: JobBackoffStore;
  private readonly clock: Clock;

  constructor(private readonly o: JobReconcilerOptions) {
    this.backoff = o.backoff ?? new JobBackoffStore();
    this.clock = o.clock ?? realClock;
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const cached = this.o.jobs.namespace(namespace).get(name);
    if (!cached || cached.metadata?.deletionTimestamp) {
      // a Job that is gone (or going) no longer counts its pods: release them so they can go too
      await this.releaseOrphanPods(namespace, name, cached);
      if (!cached) {
        this.o.expectations.forget(key);
        this.backoff.forget(key);
      }
      return;
    }
    const podLister = this.o.pods.namespace(namespace);
    if (!this.o.expectations.satisfied(key, (n) => cachedPodState(podLister.get(n)))) return;
    const job = structuredClone(cached) as Job;
    const podClient = this.o.client.resource<Pod>(PODS).namespace(namespace);
    const pods = await claimObjects(podLister.list(), {
      owner: job,
      ownerApiVersion: 'batch/v1',
      ownerKind: 'Job',
      selector: labelSelectorFromObject(job.spec?.selector),
      client: podClient,
      recheckOwner: () => this.o.client.resource<Job>(JOBS).namespace(namespace).get(name),
    });
    const status: JobStatus = structuredClone(job.status ?? {});
    const now = this.clock.now();

    const counted = await this.countFinishedPods(key, job, status, pods);
    if (isJobFinished(job)) {
      await this.writeStatus(job, status);
      return;
    }
    const active = pods.filter((p) => !isPodFinished(p) && !isPodTerminating(p));
    const terminating = pods.filter((p) => isPodTerminating(p) && !isPodFinished(p));
    const completions = job.spec?.completions;
    const indexed = job.spec?.completionMode === 'Indexed';
    const doneIndexes = indexed ? parseIndexes(status.completedIndexes, completions ?? 0) : new Set<number>();
    const perIndex = hasBackoffLimitPerIndex(job);
    const failedIndexes = perIndex ? parseIndexes(status.failedIndexes, completions ?? 0) : new Set<number>();
    const succeeded = status.succeeded ?? 0;
    const failed = status.failed ?? 0;

    // Decide whether the Job has reached its end; the terminal condition waits until its pods are gone.
    let requeueAfter: number | undefined;
    if (!hasTrueCondition(status, 'FailureTarget') && !hasTrueCondition(status, 'SuccessCriteriaMet')) {
      const deadline = job.spec?.activeDeadlineSeconds;
      const started = status.startTime ? Date.parse(status.startTime) : undefined;
      let failure: Outcome | undefined = counted.failJob;
      if (!failure && failed > (job.spec?.backoffLimit ?? 6)) failure = JobReasons.backoffLimitExceeded;
      if (!failure && deadline !== undefined && started !== undefined && !job.spec?.suspend) {
        const left = started + deadline * 1000 - now;
        if (left <= 0) failure = JobReasons.deadlineExceeded;
        else requeueAfter = left;
      }
      if (!failure && perIndex) {
        const max = job.spec?.maxFailedIndexes;
        if (typeof max === 'number' && failedIndexes.size > max) failure = JobReasons.maxFailedIndexesExceeded;
        else if (failedIndexes.size > 0 && failedIndexes.size + doneIndexes.size >= (completions ?? 0)) failure = JobReasons.failedIndexes;
      }
      const byPolicy = indexed && !failure ? matchSuccessPolicy(job.spec?.successPolicy, completions ?? 0, doneIndexes) : undefined;
      const success: Outcome | undefined = byPolicy
        ? { reason: 'SuccessPolicy', message: byPolicy }
        : (indexed
              ? doneIndexes.size >= (completions ?? 0)
              : completions === undefined || completions === null
                ? succeeded > 0 && active.length === 0
                : succeeded >= completions)
          ? JobReasons.completionsReached
          : undefined;
      if (failure) setJobCondition(status, 'FailureTarget', 'True', failure.reason, failure.message, now);
      else if (success) setJobCondition(status, 'SuccessCriteriaMet', 'True', success.reason, success.message, now);
    }
    const ending = jobCondition(status, 'FailureTarget') ?? jobCondition(status, 'SuccessCriteriaMet');
    if (ending?.status === 'True') {
      await this.deletePods(key, job, active);
      status.active = 0;
      status.ready = 0;
      status.terminating = terminating.length + active.length;
      if (active.length === 0 && terminating.length === 0 && pods.every((p) => !p.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER))) {
        const failedJob = ending.type === 'FailureTarget';
        setJobCondition(status, failedJob ? 'Failed' : 'Complete', 'True', ending.reason ?? '', ending.message ?? '', now);
        if (!failedJob) status.completionTime = metaTime(now);
        this.o.recorder.event(job, failedJob ? 'Warning' : 'Normal', failedJob ? (ending.reason ?? 'Failed') : 'Completed', failedJob ? (ending.message ?? '') : 'Job completed');
        this.backoff.forget(key);
      }
      await this.writeStatus(job, status);
      return;
    }

    if (job.spec?.suspend) {
      await this.deletePods(key, job, active);
      if (setJobCondition(status, 'Suspended', 'True', JobReasons.suspended.reason, JobReasons.suspended.message, now)) {
        this.o.recorder.event(job, 'Normal', 'Suspended', 'Job suspended');
      }
      status.active = 0;
      status.ready = 0;
      status.terminating = terminating.length + active.length;
      await this.writeStatus(job, status);
      return;
    }
    if (hasTrueCondition(status, 'Suspended')) {
      setJobCondition(status, 'Suspended', 'False', JobReasons.resumed.reason, JobReasons.resumed.message, now);
      this.o.recorder.event(job, 'Normal', 'Resumed', 'Job resumed');
      status.startTime = metaTime(now); // the deadline counts from the resume
    }
    status.startTime ??= metaTime(now);

    const parallelism = job.spec?.parallelism ?? 1;
    // podReplacementPolicy Failed waits for terminating pods to finish before replacing them.
    const busy = job.spec?.podReplacementPolicy === 'Failed' ? terminating.length : 0;
    let keep = active;
    let toDelete: Pod[] = [];
    if (indexed) {
      // One running pod per index still to do: extra and duplicate pods go.
      const seen = new Set<number>();
      keep = [];
      for (const p of [...active].sort(byCreation)) {
        const i = podCompletionIndex(p);
        if (i === undefined || i >= (completions ?? 0) || doneIndexes.has(i) || failedIndexes.has(i) || seen.has(i)) toDelete.push(p);
        else {
          seen.add(i);
          keep.push(p);
        }
      }
    }
    const remaining = indexed ? (completions ?? 0) - doneIndexes.size - failedIndexes.size : completions === undefined || completions === null ? (succeeded > 0 ? 0 : parallelism) : completions - succeeded;
    const want = Math.max(0, Math.min(parallelism, remaining) - busy);
    if (keep.length > want) {
      const ranked = [...keep].sort((a, b) => Number(isPodReady(a)) - Number(isPodReady(b)) || byCreation(b, a));
      toDelete = [...toDelete, ...ranked.slice(0, keep.length - want)];
      keep = keep.filter((p) => !toDelete.includes(p));
    }
    await this.deletePods(key, job, toDelete);
    if (keep.length < want && perIndex) {
      // each index backs off on its own failures; its new pod carries the index's failure count
      const running = new Set(keep.map(podCompletionIndex).filter((i): i is number => i !== undefined));
      const lastFailed = lastFailedPodPerIndex(pods);
      const ready: number[] = [];
      for (const ix of pendingIndexes(completions ?? 0, new Set([...doneIndexes, ...failedIndexes]), running, want - keep.length)) {
        const wait = indexBackoffRemaining(lastFailed.get(ix), now);
        if (wait === 0) ready.push(ix);
        else requeueAfter = Math.min(requeueAfter ?? wait, wait);
      }
      keep = [...keep, ...(await this.createPods(key, job, ready, (ix) => replacementFailureCounts(job, lastFailed.get(ix))))];
    } else if (keep.length < want) {
      const wait = this.backoff.remaining(key, now);
      if (wait > 0) requeueAfter = Math.min(requeueAfter ?? wait, wait);
      else {
        const running = new Set(keep.map(podCompletionIndex).filter((i): i is number => i !== undefined));
        const indexes = indexed ? pendingIndexes(completions ?? 0, doneIndexes, running, want - keep.length) : undefined;
        const created = await this.createPods(key, job, indexes ?? want - keep.length);
        keep = [...keep, ...created];
      }
    }
    status.active = keep.length;
    status.ready = keep.filter(isPodReady).length;
    status.terminating = terminating.length + toDelete.length;
    await this.writeStatus(job, status);
    return requeueAfter === undefined ? undefined : { requeueAfter };
  }

  /**
   * The three-step accounting of finished pods: record their uids in
   * uncountedTerminatedPods, remove their finalizers, then fold them into the
   * counters (and completedIndexes). Returns a FailJob verdict of the pod failure policy, if any.
   */
  private async countFinishedPods(key: string, job: Job, status: JobStatus, pods: Pod[]): Promise<{ failJob?: Outcome }> {
    const uncounted = { succeeded: [...(status.uncountedTerminatedPods?.succeeded ?? [])], failed: [...(status.uncountedTerminatedPods?.failed ?? [])] };
    const replaceOnlyFailed = job.spec?.podReplacementPolicy === 'Failed' || Boolean(job.spec?.podFailurePolicy);
    const finished = isJobFinished(job);
    const perIndex = hasBackoffLimitPerIndex(job);
    if (perIndex) status.failedIndexes ??= '';
    const newFailedIndexes: number[] = [];
    const toRelease: Pod[] = [];
    let failJob: Outcome | undefined;
    let newFailed = 0;
    let newSucceeded = 0;
    let lastFailureTime = 0;
    for (const pod of pods) {
      if (!pod.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER)) continue;
      const uid = pod.metadata.uid ?? '';
      const phase = pod.status?.phase;
      const failedPod = phase === 'Failed' || (!replaceOnlyFailed && isPodTerminating(pod) && phase !== 'Succeeded');
      if (phase === 'Succeeded') {
        if (!uncounted.succeeded.includes(uid)) {
          uncounted.succeeded.push(uid);
          newSucceeded++;
        }
      } else if (failedPod) {
        const match = phase === 'Failed' ? matchPodFailurePolicy(job.spec?.podFailurePolicy, pod) : undefined;
        if (match?.action === 'FailJob') failJob ??= { reason: 'PodFailurePolicy', message: match.message };
        const ix = perIndex ? podCompletionIndex(pod) : undefined;
        if (ix !== undefined && ix < (job.spec?.completions ?? 0) && isIndexFailed(job, pod)) newFailedIndexes.push(ix);
        if (match?.action !== 'Ignore' && !uncounted.failed.includes(uid)) {
          uncounted.failed.push(uid);
          newFailed++;
          lastFailureTime = Math.max(lastFailureTime, finishTime(pod) ?? this.clock.now());
        }
      } else if (!finished) {
        continue; // still running, or terminating while only Failed pods count: keep tracking it
      }
      toRelease.push(pod);
    }
    if (toRelease.length === 0 && uncounted.succeeded.length + uncounted.failed.length === 0) return { failJob };
    if (newFailedIndexes.length > 0) {
      // recorded with the uncounted pods, before their finalizers go: the failed index is never lost
      status.failedIndexes = formatIndexes([...parseIndexes(status.failedIndexes, job.spec?.completions ?? 0), ...newFailedIndexes]);
    }
    if (newFailed + newSucceeded + newFailedIndexes.length > 0) {
      status.uncountedTerminatedPods = uncounted;
      await this.writeStatus(job, status);
    }
    await Promise.all(toRelease.map((p) => this.removeFinalizer(p)));
    this.backoff.record(key, { failed: newFailed, succeeded: newSucceeded, lastFailureTime });
    // Fold: the pods are now released and counted once, here.
    const byUid = new Map(pods.map((p) => [p.metadata?.uid ?? '', p]));
    status.succeeded = (status.succeeded ?? 0) + uncounted.succeeded.length;
    status.failed = (status.failed ?? 0) + uncounted.failed.length;
    if (job.spec?.completionMode === 'Indexed') {
      const completions = job.spec.completions ?? 0;
      const done = parseIndexes(status.completedIndexes, completions);
      for (const uid of uncounted.succeeded) {
        const i = byUid.get(uid) && podCompletionIndex(byUid.get(uid)!);
        if (i !== undefined && i < completions) done.add(i);
      }
      status.completedIndexes = formatIndexes(done);
      status.succeeded = done.size;
    }
    status.uncountedTerminatedPods = {};
    return { failJob };
  }

  /**
   * Removes the tracking finalizer from the pods a deleted Job controlled (or
   * controls while being deleted), as upstream's orphan pod handling does;
   * otherwise they would stay Terminating forever.
   */
  private async releaseOrphanPods(namespace: string, name: string, job: Job | undefined): Promise<void> {
    const pods = this.o.pods.namespace(namespace).list().filter((p) => {
      if (!p.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER)) return false;
      const ref = p.metadata.ownerReferences?.find((r) => r.controller === true);
      if (!ref || ref.kind !== 'Job' || ref.name !== name) return false;
      return !job || ref.uid === job.metadata?.uid;
    });
    await Promise.all(pods.map((p) => this.removeFinalizer(p)));
  }

  private async removeFinalizer(pod: Pod): Promise<void> {
    const finalizers = (pod.metadata?.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER);
    const client = this.o.client.resource<Pod>(PODS).namespace(pod.metadata?.namespace ?? '');
    try {
      // resourceVersion makes the merge patch fail on a concurrent change rather than drop another finalizer.
      await client.patch(pod.metadata?.name ?? '', { metadata: { finalizers, resourceVersion: pod.metadata?.resourceVersion } }, 'merge');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private async createPods(key: string, job: Job, what: number | number[], annotate?: (index: number) => Record<string, string>): Promise<Pod[]> {
    const indexes = typeof what === 'number' ? Array.from({ length: what }, () => undefined) : what;
    const client = this.o.client.resource<Pod>(PODS).namespace(job.metadata?.namespace ?? '');
    const created: Pod[] = [];
    const { error } = await slowStartBatch(indexes.length, 1, async (i) => {
      try {
        const template = newJobPod(job, indexes[i]);
        const index = indexes[i];
        if (annotate && index !== undefined) template.metadata = { ...template.metadata, annotations: { ...template.metadata?.annotations, ...annotate(index) } };
        const pod = await client.create(template);
        this.o.expectations.expectCreate(key, pod.metadata?.name ?? '');
        created.push(pod);
        this.o.recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata?.name}`);
      } catch (err) {
        this.o.recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${String((err as Error).message ?? err)}`);
        throw err;
      }
    });
    if (error !== undefined) throw error;
    return created;
  }

  private async deletePods(key: string, job: Job, pods: Pod[]): Promise<void> {
    const client = this.o.client.resource<Pod>(PODS).namespace(job.metadata?.namespace ?? '');
    await Promise.all(
      pods.map(async (p) => {
        const name = p.metadata?.name ?? '';
        try {
          this.o.expectations.expectDelete(key, name);
          await client.delete(name);
          this.o.recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
        } catch (err) {
          this.o.expectations.forget(key, name);
          if (!isNotFound(err)) {
            this.o.recorder.event(job, 'Warning', 'FailedDelete', `Error deleting: ${String((err as Error).message ?? err)}`);
            throw err;
          }
        }
      }),
    );
  }

  /** Writes status if it changed; keeps `job` at the written resourceVersion for later writes. */
  private async writeStatus(job: Job, status: JobStatus): Promise<void> {
    if (stableStringify(job.status ?? {}) === stableStringify(status)) return;
    const client = this.o.client.resource<Job>(JOBS).namespace(job.metadata?.namespace ?? '');
    // A conflict (stale cache) throws: the informer brings the fresh Job and the key is retried.
    const updated = await client.updateStatus({ ...job, status });
    job.metadata = updated.metadata;
    job.status = structuredClone(status);
  }
}

function byCreation(a: Pod, b: Pod): number {
  return (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? '') || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

/** When the pod's last container finished, per its status. */
function finishTime(pod: Pod): number | undefined {
  let latest: number | undefined;
  for (const s of pod.status?.containerStatuses ?? []) {
    const t = s.state?.terminated?.finishedAt ? Date.parse(s.state.terminated.finishedAt) : NaN;
    if (Number.isFinite(t)) latest = Math.max(latest ?? 0, t);
  }
  return latest;
}
