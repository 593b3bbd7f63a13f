import type { Reconciler } from '../client/controller/reconciler.js';
import { TerminalError } from '../client/controller/reconciler.js';
import { exponentialBuckets } from '../base/metrics/registry.js';
import type { MetricsRegistry } from '../base/metrics/registry.js';

const BUCKETS = exponentialBuckets(0.001, 2, 16);

/**
 * Wraps a Reconciler to count reconciles by result and time them, as
 * controller-runtime's `controller_runtime_reconcile_*` families.
 */
export function instrumentedReconciler(controller: string, reconciler: Reconciler, metrics: MetricsRegistry): Reconciler {
  const total = metrics.counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller', ['controller', 'result']);
  const errors = metrics.counter('controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller', ['controller']);
  const terminal = metrics.counter('controller_runtime_terminal_reconcile_errors_total', 'Total number of terminal reconciliation errors per controller', ['controller']);
  const time = metrics.histogram('controller_runtime_reconcile_time_seconds', 'Length of time per reconciliation per controller', ['controller'], BUCKETS);
  return {
    async reconcile(key, signal) {
      const started = performance.now();
      try {
        const result = await reconciler.reconcile(key, signal);
        total.inc({ controller, result: result?.requeueAfter !== undefined ? 'requeue_after' : 'success' });
        return result;
      } catch (err) {
        total.inc({ controller, result: 'error' });
        errors.inc({ controller });
        if (err instanceof TerminalError) terminal.inc({ controller });
        throw err;
      } finally {
        time.observe({ controller }, (performance.now() - started) / 1000);
      }
    },
  };
}
