import { formatLabels, formatValue, header, labelKey, type Labels, type Metric } from './labels.js';

/** A value that goes up and down per label set. */
export class Gauge implements Metric {
  private readonly series = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  set(labels: Labels, value: number): void {
    const key = labelKey(labels);
    const s = this.series.get(key);
    if (s) s.value = value;
    else this.series.set(key, { labels: { ...labels }, value });
  }

  inc(labels: Labels = {}, by = 1): void {
    this.set(labels, this.get(labels) + by);
  }

  dec(labels: Labels = {}, by = 1): void {
    this.set(labels, this.get(labels) - by);
  }

  get(labels: Labels = {}): number {
    return this.series.get(labelKey(labels))?.value ?? 0;
  }

  render(): string {
    let out = header(this.name, this.help, 'gauge');
    for (const s of this.series.values()) out += `${this.name}${formatLabels(s.labels)} ${formatValue(s.value)}\n`;
    return out;
  }
}
