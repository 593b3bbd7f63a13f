import type { Job } from 'kubernetes-types/batch/v1.js';
import { Controller } from '../../client/controller/controller.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { instrumentedReconciler } from '../instrumented-reconciler.js';
import { JOBS, TTLAfterFinishedReconciler } from './ttl-after-finished-reconciler.js';

export const controller: ControllerDescriptor = {
  name: 'ttl-after-finished',
  async start(ctx) {
    const jobs = ctx.informers.forResource<Job>(JOBS);
    const reconciler = new TTLAfterFinishedReconciler({ client: ctx.client, jobs: jobs.lister, logger: ctx.logger });
    const c = new Controller({
      name: 'ttl_jobs_to_delete',
      workers: 2,
      metrics: ctx.metrics,
      reconciler: instrumentedReconciler('ttl-after-finished', reconciler, ctx.metrics),
      onError: (key, err) => ctx.logger.warn('deleting an expired Job failed', { job: key, error: err instanceof Error ? err.message : String(err) }),
    }).watches(jobs, { enqueue: 'self' });
    await c.run(ctx.signal);
  },
};
