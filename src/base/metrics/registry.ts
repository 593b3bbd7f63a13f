import { Counter as PromCounter, Gauge as PromGauge, Registry, type Metric } from 'prom-client';
import { FastHistogram } from './histogram.js';

/** Label values of one series, e.g. `{ name: 'deployment' }`. */
export type Labels = Readonly<Record<string, string>>;

/** A monotonically increasing value per label set. */
export interface Counter {
  inc(labels?: Labels, by?: number): void;
}

/** A value that goes up and down per label set. */
export interface Gauge {
  set(labels: Labels, value: number): void;
  inc(labels?: Labels, by?: number): void;
  dec(labels?: Labels, by?: number): void;
}

/** Observations counted into fixed upper-bound buckets per label set. */
export interface Histogram {
  observe(labels: Labels, value: number): void;
}

/** Prometheus client defaults, in seconds. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `count` buckets growing by `factor` from `start`, like prometheus.ExponentialBuckets. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

type Family = PromCounter | PromGauge | FastHistogram;

/**
 * A set of named metrics rendered together as Prometheus text (exposition
 * format 0.0.4), kept by prom-client. Label names are declared when a family
 * is registered, as with client_golang's `NewCounterVec`. Registering the same
 * name twice returns the existing family so that independent users (e.g.
 * several work queues) share it.
 */
export class MetricsRegistry {
  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;
  private readonly registry = new Registry();
  private readonly families = new Map<string, Family>();

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    const c = this.register(name, PromCounter, () => new PromCounter({ name, help, labelNames, registers: [this.registry] }));
    return { inc: (labels = {}, by = 1) => c.inc(labels, by) };
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    const g = this.register(name, PromGauge, () => new PromGauge({ name, help, labelNames, registers: [this.registry] }));
    return {
      set: (labels, value) => g.set(labels, value),
      inc: (labels = {}, by = 1) => g.inc(labels, by),
      dec: (labels = {}, by = 1) => g.dec(labels, by),
    };
  }

  histogram(name: string, help: string, labelNames: readonly string[] = [], buckets: readonly number[] = DEFAULT_BUCKETS): Histogram {
    const h = this.register(name, FastHistogram, () => {
      const fresh = new FastHistogram(name, help, labelNames, [...buckets].sort((a, b) => a - b));
      this.registry.registerMetric(fresh as unknown as Metric);
      return fresh;
    });
    return h;
  }

  /** All metrics in the Prometheus text exposition format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  private register<F extends Family>(name: string, type: abstract new (...args: never[]) => F, create: () => F): F {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) throw new RangeError(`invalid metric name ${JSON.stringify(name)}`);
    const existing = this.families.get(name);
    if (existing) {
      if (!(existing instanceof type)) throw new TypeError(`metric ${name} is already registered with another type`);
      return existing;
    }
    const family = create();
    this.families.set(name, family);
    return family;
  }
}

/** The process-wide registry that components use unless given their own. */
export const defaultRegistry = new MetricsRegistry();
