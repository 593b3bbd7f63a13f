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

export function printTable(title: string, rows: Row[]): void {
  const head: Row = { figure: 'figure', api: 'API', storage: 'raw storage', ratio: 'API/storage' };
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
