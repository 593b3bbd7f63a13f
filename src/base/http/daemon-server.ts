import http from 'node:http';
import type { MetricsRegistry } from '../../base/metrics/registry.js';
import { type HealthCheck, HEALTH_PATHS, serveHealth, serveMetrics } from './health.js';
import { closeGracefully, listen } from './listen.js';

export type { HealthCheck } from './health.js';

export interface DaemonServerOptions {
  /** Address to listen on; port 0 picks a free one. */
  bindAddress: string;
  port: number;
  metrics: MetricsRegistry;
  /** Named checks for /readyz (liveness is the process answering at all). */
  readiness?: Record<string, HealthCheck>;
}

/**
 * The small HTTP endpoint every skiff daemon exposes: `/healthz`, `/livez`,
 * `/readyz` (with `?verbose`) and `/metrics` in Prometheus text format.
 */
export class DaemonServer {
  private readonly server: http.Server;

  constructor(private readonly opts: DaemonServerOptions) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  start(): Promise<number> {
    return listen(this.server, this.opts.port, this.opts.bindAddress);
  }

  stop(): Promise<void> {
    return closeGracefully(this.server, { drainMs: 0 });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://daemon');
    if (url.pathname === '/metrics') return serveMetrics(res, this.opts.metrics);
    if (HEALTH_PATHS.includes(url.pathname)) {
      const checks = url.pathname === '/readyz' ? (this.opts.readiness ?? {}) : {};
      return serveHealth(res, url.pathname, url.searchParams, checks, { showReasons: true });
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('404 page not found\n');
  }
}
