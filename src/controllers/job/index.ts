import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Controller } from '../../client/controller/controller.js';
import { ownedBy } from '../../client/controller/owned-by.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { PodExpectations } from '../history/pod-expectations.js';
import { instrumentedReconciler } from '../instrumented-reconciler.js';
import { JOBS, JobReconciler, PODS } from './job-reconciler.js';

export const controller: ControllerDescriptor = {
  name: 'job',
  async start(ctx) {
    const jobs = ctx.informers.forResource<Job>(JOBS);
    const pods = ctx.informers.forResource<Pod>(PODS);
    const reconciler = new JobReconciler({
      client: ctx.client,
      jobs: jobs.lister,
      pods: pods.lister,
      expectations: new PodExpectations(),
      recorder: ctx.eventRecorder('job-controller'),
    });
    const c = new Controller({
      name: 'job',
      workers: 5,
      metrics: ctx.metrics,
      reconciler: instrumentedReconciler('job', reconciler, ctx.metrics),
      onError: (key, err) => ctx.logger.warn('sync failed', { key, error: String(err) }),
    })
      .watches(jobs, { enqueue: 'self' })
      .watches(pods, { enqueue: ownedBy<Pod>('Job', 'batch') });
    ctx.informers.start(ctx.signal);
    await c.run(ctx.signal);
  },
};
