import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { Controller } from '../../client/controller/controller.js';
import { ownedBy } from '../../client/controller/owned-by.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { instrumentedReconciler } from '../instrumented-reconciler.js';
import { CRONJOBS, CronJobReconciler, JOBS } from './cronjob-reconciler.js';

export const controller: ControllerDescriptor = {
  name: 'cronjob',
  async start(ctx) {
    const cronJobs = ctx.informers.forResource<CronJob>(CRONJOBS);
    const jobs = ctx.informers.forResource<Job>(JOBS);
    const reconciler = new CronJobReconciler({
      client: ctx.client,
      cronJobs: cronJobs.lister,
      jobs: jobs.lister,
      recorder: ctx.eventRecorder('cronjob-controller'),
    });
    const c = new Controller({
      name: 'cronjob',
      workers: 5,
      metrics: ctx.metrics,
      reconciler: instrumentedReconciler('cronjob', reconciler, ctx.metrics),
      onError: (key, err) => ctx.logger.warn('sync failed', { key, error: String(err) }),
    })
      .watches(cronJobs, { enqueue: 'self' })
      .watches(jobs, { enqueue: ownedBy<Job>('CronJob', 'batch') });
    ctx.informers.start(ctx.signal);
    await c.run(ctx.signal);
  },
};
