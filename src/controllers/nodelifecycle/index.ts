import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { controllerConfig, type ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { everyPeriod } from '../periodic.js';
import { NodeLifecycleController } from './node-lifecycle-controller.js';
import { LEASES, NODES, PODS } from '../../api/resource-refs.js';

/** How often queued NoExecute taints are tried against the zone rate limiters (upstream's nodeEvictionPeriod). */
const TAINTING_PERIOD_MS = 100;

export const controller: ControllerDescriptor = {
  name: 'nodelifecycle',
  async start(ctx) {
    const config = controllerConfig(ctx);
    const nodes = ctx.informers.forResource<Node>(NODES);
    const leases = ctx.informers.forResource<Lease>(LEASES);
    const pods = ctx.informers.forResource<Pod>(PODS);
    const lifecycle = new NodeLifecycleController({
      client: ctx.client,
      clock: ctx.clock,
      nodes: nodes.lister,
      leases: leases.lister,
      pods: pods.lister,
      recorder: ctx.eventRecorder('node-controller'),
      logger: ctx.logger,
      config,
    });
    const noSchedule = newController(ctx, {
      queue: 'node_lifecycle_controller',
      reconciler: { reconcile: (key, signal) => lifecycle.reconcileNoSchedule(key, signal) },
    }).watches(nodes, { enqueue: 'self' });
    const loop = async (what: string, period: number, pass: (signal: AbortSignal) => Promise<void>): Promise<void> => {
      if (await waitForCacheSync(ctx.signal, nodes, leases, pods)) await everyPeriod(ctx, what, period, pass);
    };
    await Promise.all([
      noSchedule.run(ctx.signal),
      loop('monitoring node health', config.nodeMonitorPeriodMs, (s) => lifecycle.monitor(s)),
      loop('tainting nodes', TAINTING_PERIOD_MS, (s) => lifecycle.taintQueuedNodes(s)),
    ]);
  },
};
