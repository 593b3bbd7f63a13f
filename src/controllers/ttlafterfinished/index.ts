import type { Job } from 'kubernetes-types/batch/v1.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { TTLAfterFinishedReconciler } from './ttl-after-finished-reconciler.js';
import { JOBS } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'ttl-after-finished',
  async start(ctx) {
    const jobs = ctx.informers.forResource<Job>(JOBS);
    const reconciler = new TTLAfterFinishedReconciler({ client: ctx.client, clock: ctx.clock, jobs: jobs.lister, logger: ctx.logger });
    const c = newController(ctx, {
      queue: 'ttl_jobs_to_delete',
      workers: 2,
      reconciler,
    }).watches(jobs, { enqueue: 'self' });
    await c.run(ctx.signal);
  },
};
