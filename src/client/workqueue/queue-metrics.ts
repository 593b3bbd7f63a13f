import { defaultRegistry, type MetricsRegistry } from '../../base/metrics/registry.js';
import { exponentialBuckets } from '../../base/metrics/registry.js';

/** Seconds, 10 µs to ~10 s as client-go's workqueue metrics. */
const BUCKETS = exponentialBuckets(1e-5, 10, 7);

/** The workqueue_* families client-go exports, labelled by queue name. */
export class QueueMetrics {
  private readonly labels: { name: string };
  private readonly depthGauge;
  private readonly addsCounter;
  private readonly latency;
  private readonly workDuration;
  private readonly retriesCounter;

  constructor(name: string, registry: MetricsRegistry = defaultRegistry) {
    this.labels = { name };
    this.depthGauge = registry.gauge('workqueue_depth', 'Current depth of workqueue', ['name']);
    this.addsCounter = registry.counter('workqueue_adds_total', 'Total number of adds handled by workqueue', ['name']);
    this.latency = registry.histogram('workqueue_queue_duration_seconds', 'How long in seconds an item stays in workqueue before being requested.', ['name'], BUCKETS);
    this.workDuration = registry.histogram('workqueue_work_duration_seconds', 'How long in seconds processing an item from workqueue takes.', ['name'], BUCKETS);
    this.retriesCounter = registry.counter('workqueue_retries_total', 'Total number of retries handled by workqueue', ['name']);
    this.depthGauge.set(this.labels, 0);
  }

  added(depth: number): void {
    this.addsCounter.inc(this.labels);
    this.depthGauge.set(this.labels, depth);
  }

  /** An item left the queue for a worker after waiting `waitedMs`. */
  started(depth: number, waitedMs: number): void {
    this.depthGauge.set(this.labels, depth);
    this.latency.observe(this.labels, waitedMs / 1000);
  }

  finished(workedMs: number): void {
    this.workDuration.observe(this.labels, workedMs / 1000);
  }

  retried(): void {
    this.retriesCounter.inc(this.labels);
  }
}
