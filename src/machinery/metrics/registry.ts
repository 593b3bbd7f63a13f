import { Counter } from './counter.js';
import { Gauge } from './gauge.js';
import { Histogram } from './histogram.js';
import type { Metric } from './labels.js';

/**
 * A set of named metrics rendered together as Prometheus text (exposition
 * format 0.0.4). Registering the same name twice returns the existing metric
 * so that independent users (e.g. several work queues) share one family.
 */
export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();

  counter(name: string, help: string): Counter {
    return this.register(name, Counter, () => new Counter(name, help));
  }

  gauge(name: string, help: string): Gauge {
    return this.register(name, Gauge, () => new Gauge(name, help));
  }

  histogram(name: string, help: string, buckets?: readonly number[]): Histogram {
    return this.register(name, Histogram, () => new Histogram(name, help, buckets));
  }

  /** All metrics, sorted by name, in the Prometheus text exposition format. */
  render(): string {
    return [...this.metrics.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((m) => m.render())
      .join('');
  }

  private register<M extends Metric>(name: string, type: abstract new (...args: never[]) => M, create: () => M): M {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) throw new RangeError(`invalid metric name ${JSON.stringify(name)}`);
    const existing = this.metrics.get(name);
    if (existing) {
      if (!(existing instanceof type)) throw new TypeError(`metric ${name} is already registered with another type`);
      return existing;
    }
    const m = create();
    this.metrics.set(name, m);
    return m;
  }
}

/** The process-wide registry that components use unless given their own. */
export const defaultRegistry = new MetricsRegistry();

export { Counter, Gauge, Histogram };
export type { Metric };
