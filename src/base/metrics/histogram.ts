import type { Labels } from './registry.js';

interface Series {
  labels: Labels;
  /** Observations per bucket (not cumulative), one per upper bound. */
  counts: Float64Array;
  sum: number;
  count: number;
}

/** One exported sample in prom-client's shape (what its Registry formats). */
interface Sample {
  labels: Labels;
  sharedLabels?: Labels;
  value: number;
  metricName: string;
}

/**
 * A histogram family rendered by prom-client's Registry exactly as its own
 * Histogram is, but cheap to observe: prom-client's observe allocates, hashes
 * the label object and turns the float bucket bound into a property name on
 * every call, and the API server observes several times per request. Here a
 * series is found by its label values joined, and a bucket by index.
 */
export class FastHistogram {
  readonly type = 'histogram';
  private readonly series = new Map<string, Series>();
  private readonly declared: ReadonlySet<string>;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    if (labelNames.includes('le')) throw new Error('le is a reserved label keyword');
    this.declared = new Set(labelNames);
  }

  observe(labels: Labels, value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    let key = '';
    for (const name in labels) {
      if (!this.declared.has(name)) throw new Error(`Added label "${name}" is not included in initial labelset: ${JSON.stringify(this.labelNames)}`);
    }
    for (const name of this.labelNames) key += `${labels[name] ?? ''}\u0000`;
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels: { ...labels }, counts: new Float64Array(this.bounds.length), sum: 0, count: 0 }));
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        s.counts[i]!++;
        break;
      }
    }
    s.sum += value;
    s.count++;
  }

  /** What prom-client's Registry renders as text: cumulative buckets, +Inf, sum and count per series. */
  getForPromString(): { name: string; help: string; type: string; values: Sample[]; aggregator: string } {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.series.values()) {
      let acc = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        acc += s.counts[i]!;
        values.push({ labels: { le: this.bounds[i] as unknown as string }, sharedLabels: s.labels, value: acc, metricName: bucket });
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' };
  }

  /** The same with each sample's labels in one object (prom-client's JSON form). */
  get(): ReturnType<FastHistogram['getForPromString']> {
    const data = this.getForPromString();
    data.values = data.values.map((v) => ({ labels: { ...v.sharedLabels, ...v.labels }, value: v.value, metricName: v.metricName }));
    return data;
  }

  reset(): void {
    this.series.clear();
  }
}
