import { Controller } from '../client/controller/controller.js';
import type { Reconciler } from '../client/controller/reconciler.js';
import type { RateLimiter } from '../client/workqueue/rate-limiter.js';
import type { ControllerContext } from './controller-descriptor.js';
import { instrumentedReconciler } from './instrumented-reconciler.js';

export interface NewControllerOptions {
  reconciler: Reconciler;
  /** Concurrent reconciles (upstream's `--concurrent-*-syncs`); default 1. */
  workers?: number;
  /** The work queue's name in `workqueue_*` metrics when upstream's differs from the controller's (e.g. `endpoint_slice`). */
  queue?: string;
  rateLimiter?: RateLimiter<string>;
}

/**
 * The one way a controller wires its Reconciler: named after the controller
 * (`ctx.name`, as in `--controllers`), counted and timed as controller-runtime's
 * `controller_runtime_reconcile_*`, its queue measured as `workqueue_*`, and its
 * failed syncs logged by the Controller's shared path (message and stack).
 * Add `.watches(...)` and `await c.run(ctx.signal)`.
 */
export function newController(ctx: ControllerContext, o: NewControllerOptions): Controller {
  return new Controller({
    name: o.queue ?? ctx.name,
    workers: o.workers,
    rateLimiter: o.rateLimiter,
    clock: ctx.clock,
    metrics: ctx.metrics,
    logger: ctx.logger,
    reconciler: instrumentedReconciler(ctx.name, o.reconciler, ctx.metrics),
  });
}
