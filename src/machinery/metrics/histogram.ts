import { formatLabels, formatValue, header, labelKey, type Labels, type Metric } from './labels.js';

/** Prometheus client defaults, in seconds. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `count` buckets growing by `factor` from `start`, like prometheus.ExponentialBuckets. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

interface Series {
  labels: Labels;
  /** Non-cumulative counts per bucket; rendered cumulatively. */
  counts: number[];
  sum: number;
  count: number;
}

/** Observations counted into fixed upper-bound buckets per label set. */
export class Histogram implements Metric {
  private readonly series = new Map<string, Series>();
  readonly buckets: readonly number[];

  constructor(
    readonly name: string,
    readonly help: string,
    buckets: readonly number[] = DEFAULT_BUCKETS,
  ) {
    this.buckets = [...buckets].sort((a, b) => a - b);
  }

  observe(labels: Labels, value: number): void {
    const key = labelKey(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels: { ...labels }, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    const i = this.buckets.findIndex((b) => value <= b);
    if (i >= 0) s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  /** Number of observations and their sum for a label set. */
  get(labels: Labels = {}): { count: number; sum: number } {
    const s = this.series.get(labelKey(labels));
    return { count: s?.count ?? 0, sum: s?.sum ?? 0 };
  }

  render(): string {
    let out = header(this.name, this.help, 'histogram');
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((b, i) => {
        cumulative += s.counts[i];
        out += `${this.name}_bucket${formatLabels({ ...s.labels, le: formatValue(b) })} ${cumulative}\n`;
      });
      out += `${this.name}_bucket${formatLabels({ ...s.labels, le: '+Inf' })} ${s.count}\n`;
      out += `${this.name}_sum${formatLabels(s.labels)} ${formatValue(s.sum)}\n`;
      out += `${this.name}_count${formatLabels(s.labels)} ${s.count}\n`;
    }
    return out;
  }
}
