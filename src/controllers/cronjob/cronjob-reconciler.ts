import { realClock, type Clock } from '../../base/clock.js';
import type { CronJob, CronJobStatus, Job } from 'kubernetes-types/batch/v1.js';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import { TerminalError, type Reconciler, type ReconcileResult } from '../../client/controller/reconciler.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Client } from '../../client/rest/client.js';
import { isAlreadyExists, isNotFound } from '../../client/rest/error-predicates.js';
import { metaTime } from '../history/pod-state.js';
import { stableStringify } from '../history/revision-hash.js';
import { CronParseError, parseCronSchedule } from './cron-schedule.js';
import { jobNameFor, newJobFromCronJob } from './cronjob-job.js';
import { MAX_MISSED_STARTS, missedStarts } from './missed-starts.js';
import { CRON_JOBS, JOBS } from '../../api/resource-refs.js';

/** Wake a little after the scheduled minute so the clock has surely passed it. */
const REQUEUE_SLACK_MS = 100;

export interface CronJobReconcilerOptions {
  client: Client;
  cronJobs: Lister<CronJob>;
  jobs: Lister<Job>;
  recorder: EventRecorder;
  /** Injectable for tests that drive time. */
  /** Time (default the real clock). */
  clock?: Clock;
}

function finishedAs(job: Job): 'Complete' | 'Failed' | undefined {
  for (const c of job.status?.conditions ?? []) if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  return undefined;
}

function refTo(job: Job): ObjectReference {
  return { apiVersion: 'batch/v1', kind: 'Job', name: job.metadata?.name, namespace: job.metadata?.namespace, uid: job.metadata?.uid, resourceVersion: job.metadata?.resourceVersion };
}

const startOf = (j: Job): number => Date.parse(j.status?.startTime ?? j.metadata?.creationTimestamp ?? '') || 0;

/**
 * The CronJob controller (upstream's v2): keeps status.active in step with
 * the CronJob's Jobs, prunes finished Jobs beyond the history limits, and
 * starts the latest missed start time (only that one) unless suspended, too
 * late for the starting deadline, or blocked by the concurrency policy; then
 * asks to be woken at the next start time.
 */
export class CronJobReconciler implements Reconciler {
  private readonly clock: Clock;

  constructor(private readonly o: CronJobReconcilerOptions) {
    this.clock = o.clock ?? realClock;
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const cached = this.o.cronJobs.namespace(namespace).get(name);
    if (!cached) return;
    const cj = structuredClone(cached) as CronJob;
    const status: CronJobStatus = structuredClone(cj.status ?? {});
    const uid = cj.metadata?.uid;
    const jobs = this.o.jobs
      .namespace(namespace)
      .list()
      .filter((j) => j.metadata?.ownerReferences?.some((r) => r.controller === true && r.uid === uid));
    this.syncActive(cj, status, jobs);
    await this.pruneHistory(cj, jobs);
    const result = cj.metadata?.deletionTimestamp ? undefined : await this.schedule(cj, status, jobs);
    if (status.active?.length === 0) delete status.active;
    if (stableStringify(status) !== stableStringify(cj.status ?? {})) {
      await this.o.client.resource<CronJob>(CRON_JOBS).namespace(namespace).updateStatus({ ...cj, status });
    }
    return result;
  }

  private syncActive(cj: CronJob, status: CronJobStatus, jobs: Job[]): void {
    const active = new Map((status.active ?? []).map((r) => [r.uid, r]));
    const present = new Set(jobs.map((j) => j.metadata?.uid));
    for (const job of jobs) {
      const finished = finishedAs(job);
      const listed = active.has(job.metadata?.uid);
      if (!listed && !finished && !this.isOwnSchedule(cj, job)) {
        this.o.recorder.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata?.name}`);
      } else if (!listed && !finished) {
        active.set(job.metadata?.uid, refTo(job)); // created by us, status write lost
      } else if (listed && finished) {
        active.delete(job.metadata?.uid);
        this.o.recorder.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata?.name}, condition: ${finished}`);
      }
      if (finished === 'Complete' && job.status?.completionTime) {
        const last = status.lastSuccessfulTime ? Date.parse(status.lastSuccessfulTime) : 0;
        if (Date.parse(job.status.completionTime) > last) status.lastSuccessfulTime = job.status.completionTime;
      }
    }
    // A Job deleted behind our back is no longer active.
    for (const [id, ref] of active) {
      if (!present.has(id)) {
        active.delete(id);
        this.o.recorder.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
      }
    }
    status.active = [...active.values()];
  }

  /** A Job named as this CronJob's own schedule names them (not one made by `kubectl create job --from`). */
  private isOwnSchedule(cj: CronJob, job: Job): boolean {
    return /^\d+$/.test((job.metadata?.name ?? '').slice((cj.metadata?.name ?? '').length + 1));
  }

  private async pruneHistory(cj: CronJob, jobs: Job[]): Promise<void> {
    const limits = { Complete: cj.spec?.successfulJobsHistoryLimit, Failed: cj.spec?.failedJobsHistoryLimit } as const;
    for (const kind of ['Complete', 'Failed'] as const) {
      const limit = limits[kind];
      if (limit === undefined || limit === null) continue;
      const finished = jobs.filter((j) => finishedAs(j) === kind && !j.metadata?.deletionTimestamp).sort((a, b) => startOf(a) - startOf(b));
      for (const job of finished.slice(0, Math.max(0, finished.length - limit))) await this.deleteJob(cj, job);
    }
  }

  private async deleteJob(cj: CronJob, job: Job): Promise<void> {
    try {
      await this.o.client.resource<Job>(JOBS).namespace(job.metadata?.namespace ?? '').delete(job.metadata?.name ?? '', { propagationPolicy: 'Background' });
      this.o.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata?.name}`);
    } catch (err) {
      if (isNotFound(err)) return;
      this.o.recorder.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${String((err as Error).message ?? err)}`);
      throw err;
    }
  }

  private async schedule(cj: CronJob, status: CronJobStatus, jobs: Job[]): Promise<ReconcileResult | void> {
    let schedule;
    try {
      schedule = parseCronSchedule(cj.spec?.schedule ?? '', cj.spec?.timeZone ?? 'UTC');
    } catch (err) {
      if (!(err instanceof CronParseError)) throw err;
      const reason = cj.spec?.timeZone && err.message.startsWith('unknown time zone') ? 'UnknownTimeZone' : 'UnparseableSchedule';
      this.o.recorder.event(cj, 'Warning', reason, `unparseable schedule: ${JSON.stringify(cj.spec?.schedule)} : ${err.message}`);
      throw new TerminalError(err.message, { cause: err });
    }
    const now = this.clock.now();
    const wake = (): ReconcileResult | void => {
      const next = schedule.next(now);
      return next === undefined ? undefined : { requeueAfter: Math.max(0, next - now) + REQUEUE_SLACK_MS };
    };
    if (cj.spec?.suspend) return;
    const earliest = Date.parse(status.lastScheduleTime ?? cj.metadata?.creationTimestamp ?? '') || now;
    const deadline = cj.spec?.startingDeadlineSeconds ?? undefined;
    const missed = missedStarts(schedule, earliest, now, deadline);
    if (missed.tooMany) {
      this.o.recorder.event(cj, 'Warning', 'TooManyMissedTimes', `too many missed start times: ${missed.count > MAX_MISSED_STARTS ? `> ${MAX_MISSED_STARTS}` : missed.count}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
    }
    const scheduled = missed.latest;
    if (scheduled === undefined) return wake();
    if (deadline !== undefined && scheduled + deadline * 1000 < now) {
      this.o.recorder.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${new Date(scheduled).toISOString()}`);
      return wake();
    }
    const name = jobNameFor(cj.metadata?.name ?? '', scheduled);
    if (jobs.some((j) => j.metadata?.name === name) || (status.active ?? []).some((r) => r.name === name)) return wake();
    const running = jobs.filter((j) => !finishedAs(j) && (status.active ?? []).some((r) => r.uid === j.metadata?.uid));
    if (cj.spec?.concurrencyPolicy === 'Forbid' && running.length > 0) {
      this.o.recorder.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return wake();
    }
    if (cj.spec?.concurrencyPolicy === 'Replace') {
      for (const job of running) {
        await this.deleteJob(cj, job);
        status.active = (status.active ?? []).filter((r) => r.uid !== job.metadata?.uid);
      }
    }
    const jobs_ = this.o.client.resource<Job>(JOBS).namespace(cj.metadata?.namespace ?? '');
    let created: Job;
    try {
      created = await jobs_.create(newJobFromCronJob(cj, scheduled));
      this.o.recorder.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata?.name}`);
    } catch (err) {
      if (!isAlreadyExists(err)) {
        this.o.recorder.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${String((err as Error).message ?? err)}`);
        throw err;
      }
      created = await jobs_.get(name); // made by an earlier pass whose status write was lost
      if (!created.metadata?.ownerReferences?.some((r) => r.uid === cj.metadata?.uid)) return wake();
    }
    if (!(status.active ?? []).some((r) => r.uid === created.metadata?.uid) && !finishedAs(created)) status.active = [...(status.active ?? []), refTo(created)];
    status.lastScheduleTime = metaTime(scheduled);
    return wake();
  }
}
