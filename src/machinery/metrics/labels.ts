/** Label values of one series, e.g. `{ name: 'deployment' }`. */
export type Labels = Readonly<Record<string, string>>;

/** A stable map key for a label set (sorted by label name). */
export function labelKey(labels: Labels): string {
  const names = Object.keys(labels);
  if (names.length > 1) names.sort();
  // label names cannot hold NUL, and values are separated by a byte they never need
  let key = '';
  for (const n of names) key += `${n}\u0000${labels[n]}\u0001`;
  return key;
}

function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/** Renders `{a="1",b="2"}`, or the empty string for no labels. */
export function formatLabels(labels: Labels): string {
  const names = Object.keys(labels).sort();
  if (names.length === 0) return '';
  return `{${names.map((n) => `${n}="${escapeLabelValue(labels[n])}"`).join(',')}}`;
}

/** Prometheus renders numbers as Go's strconv does, with +Inf/-Inf/NaN spelled out. */
export function formatValue(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Number.isNaN(v)) return 'NaN';
  return String(v);
}

/** Every metric renders itself as exposition text lines (HELP and TYPE included). */
export interface Metric {
  readonly name: string;
  render(): string;
}

export function header(name: string, help: string, type: 'counter' | 'gauge' | 'histogram'): string {
  const escapedHelp = help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return `# HELP ${name} ${escapedHelp}\n# TYPE ${name} ${type}\n`;
}
