import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isConflict, isNotFound } from '../../client/rest/error-predicates.js';
import type { Logger } from '../../machinery/logger.js';
import { JOBS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

/** When a finished Job's TTL runs out (ms), or undefined if it has none or has not finished. */
export function jobExpiry(job: Job): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null || job.metadata?.deletionTimestamp) return undefined;
  const finished = (job.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  if (!finished) return undefined;
  const at = Date.parse(finished.lastTransitionTime ?? job.status?.completionTime ?? '');
  return Number.isFinite(at) ? at + ttl * 1000 : undefined;
}

/**
 * Upstream's TTL-after-finished controller: a finished Job with
 * `ttlSecondsAfterFinished` is deleted (foreground, so its pods go first)
 * once that many seconds have passed since it finished.
 */
export class TTLAfterFinishedReconciler implements Reconciler {
  private readonly clock: Clock;

  constructor(private readonly o: { client: Client; jobs: Lister<Job>; logger: Logger; clock?: Clock }) {
    this.clock = o.clock ?? realClock;
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const cached = this.o.jobs.namespace(namespace).get(name);
    if (!cached) return;
    const expiry = jobExpiry(cached);
    if (expiry === undefined) return;
    if (expiry > this.clock.now()) return { requeueAfter: expiry - this.clock.now() };
    const jobs = this.o.client.resource<Job>(JOBS).namespace(namespace);
    try {
      // the TTL may have been changed meanwhile: decide on the live object
      const live = await jobs.get(name, { signal });
      const liveExpiry = jobExpiry(live);
      if (liveExpiry === undefined) return;
      if (liveExpiry > this.clock.now()) return { requeueAfter: liveExpiry - this.clock.now() };
      this.o.logger.info('deleting a finished Job whose TTL expired', { job: key });
      await jobs.delete(name, { propagationPolicy: 'Foreground', preconditions: { uid: live.metadata?.uid, resourceVersion: live.metadata?.resourceVersion }, signal });
    } catch (err) {
      if (isNotFound(err)) return;
      if (isConflict(err)) return { requeueAfter: 0 };
      throw err;
    }
  }
}
