import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsRegistry } from '../../machinery/metrics/registry.js';
import { parseLogOptions, streamLogs } from './container-logs.js';

/** Where a container's log lives; undefined if the pod or container is unknown here. */
export type LogLocator = (namespace: string, pod: string, container: string | undefined, previous: boolean) => { path: string; running: () => boolean } | undefined | { error: string };

export interface KubeletServerOptions {
  bindAddress: string;
  port: number;
  tls: { cert: string; key: string; ca?: string };
  metrics: MetricsRegistry;
  locateLog: LogLocator;
  /** Running pods as a PodList (upstream's /pods). */
  pods: () => unknown;
}

/**
 * The kubelet's HTTPS API: /healthz, /metrics, /pods and
 * /containerLogs/<namespace>/<pod>/<container>, which the API server proxies
 * for `pods/log`. Client certificates are requested and, when a CA is given,
 * must chain to it.
 */
export class KubeletServer {
  private readonly server: https.Server;

  constructor(private readonly opts: KubeletServerOptions) {
    this.server = https.createServer({ cert: opts.tls.cert, key: opts.tls.key, ...(opts.tls.ca ? { ca: opts.tls.ca, requestCert: true, rejectUnauthorized: false } : {}) }, (req, res) => void this.handle(req, res));
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

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    try {
      if (this.opts.tls.ca) {
        const sock = req.socket as import('node:tls').TLSSocket;
        if (!sock.authorized && parts[0] !== 'healthz') return text(res, 401, 'Unauthorized\n');
      }
      if (parts[0] === 'healthz') return text(res, 200, 'ok');
      if (parts[0] === 'metrics') return text(res, 200, this.opts.metrics.render(), 'text/plain; version=0.0.4; charset=utf-8');
      if (parts[0] === 'pods' && parts.length === 1) return text(res, 200, JSON.stringify(this.opts.pods()), 'application/json');
      if (parts[0] === 'containerLogs' && (parts.length === 3 || parts.length === 4) && req.method === 'GET') {
        const found = this.opts.locateLog(parts[1], parts[2], parts[3], url.searchParams.get('previous') === 'true');
        if (!found) return text(res, 404, `pod ${parts[1]}/${parts[2]} not found on this node\n`);
        if ('error' in found) return text(res, 400, `${found.error}\n`);
        return await streamLogs(found.path, parseLogOptions(url.searchParams), res, found.running);
      }
      if (['exec', 'attach', 'portForward', 'run'].includes(parts[0])) return text(res, 501, `${parts[0]} is not implemented by this kubelet yet\n`);
      return text(res, 404, '404 page not found\n');
    } catch (err) {
      if (!res.headersSent) text(res, 500, `${err instanceof Error ? err.message : String(err)}\n`);
      else res.end();
    }
  }
}

function text(res: ServerResponse, code: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(code, { 'Content-Type': type });
  res.end(body);
}
