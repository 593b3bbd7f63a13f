import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { HORIZONTAL_POD_AUTOSCALERS, PODS } from '../../api/resource-refs.js';
import { realClock } from '../../base/clock.js';
import { finalState } from '../../client/cache/deleted-final-state-unknown.js';
import { metaNamespaceKey } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import type { RateLimiter } from '../../client/workqueue/rate-limiter.js';
import { controllerConfig, type ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { HorizontalReconciler } from './horizontal-reconciler.js';

/** Upstream's FixedItemIntervalRateLimiter: every key waits one sync period, so each autoscaler is evaluated once per period. */
function fixedInterval(ms: number): RateLimiter<string> {
  return { when: () => ms, forget: () => {}, numRequeues: () => 0 };
}

/**
 * Upstream's `horizontalpodautoscaling` controller. Unlike most controllers it
 * is paced, not triggered: a new autoscaler is evaluated at once, then every
 * `--horizontal-pod-autoscaler-sync-period`; edits (its own status writes
 * included) are picked up at the next evaluation, so metrics never get read
 * twice within a period.
 */
export const controller: ControllerDescriptor = {
  name: 'horizontalpodautoscaling',
  async start(ctx) {
    const config = controllerConfig(ctx);
    const hpas = ctx.informers.forResource<HorizontalPodAutoscaler>(HORIZONTAL_POD_AUTOSCALERS);
    const pods = ctx.informers.forResource<Pod>(PODS);
    const reconciler = new HorizontalReconciler({
      client: ctx.client,
      recorder: ctx.eventRecorder('horizontal-pod-autoscaler'),
      hpas: hpas.lister,
      pods: pods.lister,
      clock: ctx.clock ?? realClock,
      syncPeriodMs: config.hpaSyncPeriodMs,
      downscaleStabilizationMs: config.hpaDownscaleStabilizationMs,
      tolerance: config.hpaTolerance,
      cpuInitializationPeriodMs: config.hpaCpuInitializationPeriodMs,
      initialReadinessDelayMs: config.hpaInitialReadinessDelayMs,
    });
    const c = newController(ctx, { reconciler, queue: 'horizontalpodautoscaler', rateLimiter: fixedInterval(config.hpaSyncPeriodMs) });
    hpas.addEventHandler({
      onAdd: (hpa) => c.queue.add(metaNamespaceKey(hpa)),
      onUpdate: (_old, hpa) => c.queue.addRateLimited(metaNamespaceKey(hpa)),
      // a deleted autoscaler's recommendations and scale events are dropped by its next reconcile
      onDelete: (hpa) => c.queue.add(metaNamespaceKey(finalState(hpa))),
    });
    if (!(await waitForCacheSync(ctx.signal, hpas, pods))) return;
    await c.run(ctx.signal);
  },
};
