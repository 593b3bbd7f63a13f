/** Small helpers for benchmark figures. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function fmt(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
}

export interface Row {
  figure: string;
  api: string;
  storage: string;
  ratio: string;
}

export function printTable(title: string, rows: Row[], head: Row = { figure: 'figure', api: 'API', storage: 'raw storage', ratio: 'API/storage' }): void {
  const all = [head, ...rows];
  const w = (k: keyof Row) => Math.max(...all.map((r) => r[k].length));
  process.stdout.write(`\n${title}\n`);
  for (const r of all) {
    process.stdout.write(`  ${r.figure.padEnd(w('figure'))}  ${r.api.padStart(w('api'))}  ${r.storage.padStart(w('storage'))}  ${r.ratio.padStart(w('ratio'))}\n`);
  }
}

/** Runs `fn` on `count` items with at most `concurrency` in flight; returns per-call latencies in ms. */
export async function runConcurrent(count: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const t0 = performance.now();
      await fn(i);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return latencies;
}

/**
 * Write → delivery bookkeeping for watch figures. Every expected delivery is
 * counted: one that arrives after its step stopped waiting is *late* (its
 * latency still counts), one that never arrives is *missing*; neither is
 * dropped from the report, and `assertComplete` fails the run on a loss.
 */
export class DeliveryLedger {
  readonly latencies: number[] = [];
  private readonly writes = new Map<string, { at: number; deadline: number; arrived: number }>();
  /** Deliveries seen before their write's response came back (the key is only known then). */
  private readonly early = new Map<string, number[]>();
  private late = 0;

  constructor(
    private readonly watchers: number,
    private readonly waitMs: number,
  ) {}

  /** Records a write whose event every watcher should see. */
  wrote(key: string, at = performance.now()): void {
    this.writes.set(key, { at, deadline: at + this.waitMs, arrived: 0 });
    for (const t of this.early.get(key) ?? []) this.arrived(key, t);
    this.early.delete(key);
  }

  /** Records one watcher's delivery of the event for `key` (unknown keys are other traffic). */
  arrived(key: string, at = performance.now()): void {
    const w = this.writes.get(key);
    if (!w) {
      const list = this.early.get(key) ?? [];
      list.push(at);
      this.early.set(key, list);
      return;
    }
    w.arrived++;
    this.latencies.push(at - w.at);
    if (at > w.deadline) this.late++;
  }

  /** Waits until every watcher has the event for `key`, or its deadline passes. */
  async waitFor(key: string): Promise<void> {
    const w = this.writes.get(key);
    if (!w) throw new Error(`no write recorded for ${key}`);
    while (w.arrived < this.watchers && performance.now() < w.deadline) await new Promise((r) => setTimeout(r, 2));
  }

  /** Waits (bounded) for every outstanding delivery. */
  async settle(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.missing() > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }

  missing(): number {
    let n = 0;
    for (const w of this.writes.values()) n += Math.max(0, this.watchers - w.arrived);
    return n;
  }

  summary(): string {
    return `${this.writes.size * this.watchers} expected, ${this.late} late, ${this.missing()} missing`;
  }

  /** Throws when any expected delivery never arrived: a benchmark must not hide lost events. */
  assertComplete(label: string): void {
    const missing = this.missing();
    if (missing > 0) throw new Error(`${label}: ${missing} watch events never arrived (${this.summary()})`);
  }
}

/** The median of `samples` readings of `read`, each after `settleMs`: one noisy sample cannot swing a memory figure. */
export async function medianSample(read: () => Promise<number>, samples = 5, settleMs = 300): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < samples; i++) {
    await new Promise((r) => setTimeout(r, settleMs));
    values.push(await read());
  }
  return percentile(values, 50);
}

/** A memory growth figure: a difference below zero is measurement noise, never printed as a negative size. */
export function fmtGrowth(kb: number, digits = 1): string {
  if (!Number.isFinite(kb)) return 'n/a';
  return kb < 0 ? `<noise` : kb.toFixed(digits);
}
