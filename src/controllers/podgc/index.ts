import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { controllerConfig, type ControllerDescriptor } from '../controller-descriptor.js';
import { everyPeriod } from '../periodic.js';
import { PodGC } from './pod-gc.js';
import { JOBS, NODES, PODS } from '../../api/resource-refs.js';

/** Upstream's gcCheckPeriod. */
const GC_PERIOD_MS = 20_000;

export const controller: ControllerDescriptor = {
  name: 'podgc',
  async start(ctx) {
    const pods = ctx.informers.forResource<Pod>(PODS);
    const nodes = ctx.informers.forResource<Node>(NODES);
    const jobs = ctx.informers.forResource<Job>(JOBS);
    const gc = new PodGC({
      client: ctx.client,
      clock: ctx.clock,
      pods: pods.lister,
      nodes: nodes.lister,
      jobs: jobs.lister,
      logger: ctx.logger,
      terminatedPodThreshold: controllerConfig(ctx).terminatedPodGCThreshold,
    });
    if (!(await waitForCacheSync(ctx.signal, pods, nodes, jobs))) return;
    await everyPeriod(ctx, 'pod garbage collection', GC_PERIOD_MS, (signal) => gc.gc(signal));
  },
};
