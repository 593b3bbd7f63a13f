import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { Controller } from '../../client/controller/controller.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { sleep } from '../../client/flowcontrol/sleep.js';
import { controllerConfig, type ControllerDescriptor } from '../controller-descriptor.js';
import { instrumentedReconciler } from '../instrumented-reconciler.js';
import { LEASES, NodeLifecycleController, NODES, PODS } from './node-lifecycle-controller.js';

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
      nodes: nodes.lister,
      leases: leases.lister,
      pods: pods.lister,
      recorder: ctx.eventRecorder('node-controller'),
      logger: ctx.logger,
      config,
    });
    const noSchedule = new Controller({
      name: 'node_lifecycle_controller',
      metrics: ctx.metrics,
      reconciler: instrumentedReconciler('nodelifecycle', { reconcile: (key, signal) => lifecycle.reconcileNoSchedule(key, signal) }, ctx.metrics),
      onError: (key, err) => ctx.logger.warn('updating node taints failed', { node: key, error: err instanceof Error ? err.message : String(err) }),
    }).watches(nodes, { enqueue: 'self' });
    const loop = async (what: string, period: number, pass: (signal: AbortSignal) => Promise<void>): Promise<void> => {
      if (!(await waitForCacheSync(ctx.signal, nodes, leases, pods))) return;
      while (!ctx.signal.aborted) {
        try {
          await pass(ctx.signal);
        } catch (err) {
          if (!ctx.signal.aborted) ctx.logger.warn(`${what} failed`, { error: err instanceof Error ? err.message : String(err) });
        }
        await sleep(period, ctx.signal);
      }
    };
    await Promise.all([
      noSchedule.run(ctx.signal),
      loop('monitoring node health', config.nodeMonitorPeriodMs, (s) => lifecycle.monitor(s)),
      loop('tainting nodes', TAINTING_PERIOD_MS, (s) => lifecycle.taintQueuedNodes(s)),
    ]);
  },
};
