import type { Counter, Gauge, Histogram, MetricsRegistry } from '../base/metrics/registry.js';
import { exponentialBuckets } from '../base/metrics/registry.js';

/** The scheduler's Prometheus metrics, named as upstream's. */
export interface SchedulerMetrics {
  attempts: Counter;
  attemptDuration: Histogram;
  e2eDuration: Histogram;
  pendingPods: Gauge;
  preemptionAttempts: Counter;
}

export function schedulerMetrics(registry: MetricsRegistry): SchedulerMetrics {
  const buckets = exponentialBuckets(0.001, 2, 15);
  return {
    attempts: registry.counter('scheduler_schedule_attempts_total', 'Number of attempts to schedule pods, by the result.', ['result', 'profile']),
    attemptDuration: registry.histogram('scheduler_scheduling_attempt_duration_seconds', 'Scheduling attempt latency in seconds (scheduling algorithm + binding).', ['result', 'profile'], buckets),
    // Upstream's SLI buckets (10 ms doubling to ~87 min): a backlog waits far longer than one attempt takes.
    e2eDuration: registry.histogram('scheduler_pod_scheduling_sli_duration_seconds', 'E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue.', [], exponentialBuckets(0.01, 2, 20)),
    pendingPods: registry.gauge('scheduler_pending_pods', 'Number of pending pods, by the queue type.', ['queue']),
    preemptionAttempts: registry.counter('scheduler_preemption_attempts_total', 'Total preemption attempts in the cluster till now.'),
  };
}
