import type { ServerResponse } from 'node:http';

/** One named check behind /readyz (or /livez); throws or rejects when failing. */
export type HealthCheck = () => Promise<void> | void;

export const HEALTH_PATHS: readonly string[] = ['/healthz', '/livez', '/readyz'];

export interface HealthOptions {
  /** Put each failure's message in the body; upstream's API server withholds it. Default false. */
  showReasons?: boolean;
}

/**
 * Answers /healthz, /livez or /readyz the way upstream's healthz package
 * does: `ok` when every check passes, else (or with `?verbose`) one
 * `[+]name ok` / `[-]name failed: …` line per check and a summary, with 500
 * on failure.
 */
export async function serveHealth(res: ServerResponse, path: string, query: URLSearchParams, checks: Record<string, HealthCheck>, opts: HealthOptions = {}): Promise<void> {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of Object.entries({ ping: () => undefined, ...checks })) {
    try {
      await check();
      lines.push(`[+]${name} ok`);
    } catch (err) {
      ok = false;
      lines.push(`[-]${name} failed: ${opts.showReasons ? (err instanceof Error ? err.message : String(err)) : 'reason withheld'}`);
    }
  }
  const body = query.has('verbose') || !ok ? `${lines.join('\n')}\n${path.slice(1)} check ${ok ? 'passed' : 'failed'}\n` : 'ok';
  res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

/** Answers /metrics with the Prometheus text exposition. */
/** What /metrics serves: Prometheus text and its content type (a MetricsRegistry). */
export interface MetricsSource {
  readonly contentType: string;
  render(): Promise<string>;
}

export async function serveMetrics(res: ServerResponse, metrics: MetricsSource): Promise<void> {
  const body = await metrics.render();
  res.writeHead(200, { 'Content-Type': metrics.contentType });
  res.end(body);
}
