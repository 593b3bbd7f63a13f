import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ownedBy } from '../../client/controller/owned-by.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { PodExpectations } from '../history/pod-expectations.js';
import { JobReconciler } from './job-reconciler.js';
import { JOBS, PODS } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'job',
  async start(ctx) {
    const jobs = ctx.informers.forResource<Job>(JOBS);
    const pods = ctx.informers.forResource<Pod>(PODS);
    const reconciler = new JobReconciler({
      client: ctx.client,
      clock: ctx.clock,
      jobs: jobs.lister,
      pods: pods.lister,
      expectations: new PodExpectations(ctx.clock),
      recorder: ctx.eventRecorder('job-controller'),
    });
    const c = newController(ctx, {
      workers: 5,
      reconciler,
    })
      .watches(jobs, { enqueue: 'self' })
      .watches(pods, { enqueue: ownedBy<Pod>('Job', 'batch') });
    ctx.informers.start(ctx.signal);
    await c.run(ctx.signal);
  },
};
