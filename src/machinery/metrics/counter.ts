import { formatLabels, formatValue, header, labelKey, type Labels, type Metric } from './labels.js';

/** A monotonically increasing value per label set. */
export class Counter implements Metric {
  private readonly series = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    if (by < 0) throw new RangeError(`counter ${this.name} cannot decrease`);
    const key = labelKey(labels);
    const s = this.series.get(key);
    if (s) s.value += by;
    else this.series.set(key, { labels: { ...labels }, value: by });
  }

  get(labels: Labels = {}): number {
    return this.series.get(labelKey(labels))?.value ?? 0;
  }

  render(): string {
    let out = header(this.name, this.help, 'counter');
    for (const s of this.series.values()) out += `${this.name}${formatLabels(s.labels)} ${formatValue(s.value)}\n`;
    return out;
  }
}
