import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { ownedBy } from '../../client/controller/owned-by.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { CronJobReconciler } from './cronjob-reconciler.js';
import { CRON_JOBS, JOBS } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'cronjob',
  async start(ctx) {
    const cronJobs = ctx.informers.forResource<CronJob>(CRON_JOBS);
    const jobs = ctx.informers.forResource<Job>(JOBS);
    const reconciler = new CronJobReconciler({
      client: ctx.client,
      cronJobs: cronJobs.lister,
      jobs: jobs.lister,
      recorder: ctx.eventRecorder('cronjob-controller'),
    });
    const c = newController(ctx, {
      workers: 5,
      reconciler,
    })
      .watches(cronJobs, { enqueue: 'self' })
      .watches(jobs, { enqueue: ownedBy<Job>('CronJob', 'batch') });
    ctx.informers.start(ctx.signal);
    await c.run(ctx.signal);
  },
};
