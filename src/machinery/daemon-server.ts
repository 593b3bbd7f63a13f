import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsRegistry } from './metrics/registry.js';

export type HealthCheck = () => Promise<void> | void;

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

  async start(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port, this.opts.bindAddress, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://daemon');
    if (url.pathname === '/metrics') {
      res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(this.opts.metrics.render());
      return;
    }
    if (url.pathname === '/healthz' || url.pathname === '/livez' || url.pathname === '/readyz') {
      const checks = url.pathname === '/readyz' ? Object.entries(this.opts.readiness ?? {}) : [];
      const lines = ['[+]ping ok'];
      let ok = true;
      for (const [name, check] of checks) {
        try {
          await check();
          lines.push(`[+]${name} ok`);
        } catch (err) {
          ok = false;
          lines.push(`[-]${name} failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(url.searchParams.has('verbose') || !ok ? `${lines.join('\n')}\n${url.pathname.slice(1)} check ${ok ? 'passed' : 'failed'}\n` : 'ok');
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('404 page not found\n');
  }
}
