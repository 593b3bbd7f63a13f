import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MetricsRegistry } from '../../base/metrics/registry.js';
import { serveHealth, serveMetrics } from '../../base/http/health.js';
import { closeGracefully, listen } from '../../base/http/listen.js';
import type { Duplex } from 'node:stream';
import { LogQueryError, parseLogOptions, streamLogs } from './container-logs.js';
import type { StreamingServer } from './streaming-server.js';
import type { StatsProvider } from '../stats/stats-provider.js';
import { renderResourceMetrics } from '../stats/resource-metrics.js';
import { kubeletForbiddenMessage, kubeletRequestAttributes, type KubeletAuth } from './kubelet-auth.js';

/** Where a container's log lives; undefined if the pod or container is unknown here. */
export type LogLocator = (namespace: string, pod: string, container: string | undefined, previous: boolean) => { path: string; running: () => boolean } | undefined | { error: string };

export interface KubeletServerOptions {
  bindAddress: string;
  port: number;
  /** The serving certificate and the CA whose client certificates authenticate callers (required, as upstream's --client-ca-file). */
  tls: { cert: string; key: string; ca: string };
  nodeName: string;
  /** Authenticates (certificate or TokenReview) and authorizes (SubjectAccessReview) every request. */
  auth: Pick<KubeletAuth, 'authenticate' | 'authorize'>;
  metrics: MetricsRegistry;
  locateLog: LogLocator;
  /** Running pods as a PodList (upstream's /pods). */
  pods: () => unknown;
  /** Resource usage for /stats/summary and /metrics/resource. */
  stats?: Pick<StatsProvider, 'collect'>;
  /** Serves exec, attach and portForward upgrades. */
  streaming?: StreamingServer;
}

/**
 * The kubelet's HTTPS API: /healthz, /metrics, /metrics/resource,
 * /stats/summary, /pods and
 * /containerLogs/<namespace>/<pod>/<container>, which the API server proxies
 * for `pods/log`, and the exec, attach and portForward upgrades (see
 * StreamingServer). Every request is authenticated (a client certificate
 * from the client CA, or a bearer token through a TokenReview) and
 * authorized (a SubjectAccessReview on nodes/proxy, nodes/stats,
 * nodes/metrics, nodes/log of this node), as upstream's kubelet: 401 or 403.
 */
export class KubeletServer {
  private readonly server: https.Server;

  constructor(private readonly opts: KubeletServerOptions) {
    this.server = https.createServer({ cert: opts.tls.cert, key: opts.tls.key, ca: opts.tls.ca, requestCert: true, rejectUnauthorized: false }, (req, res) => void this.handle(req, res));
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.upgrade(req, socket, head));
  }

  start(): Promise<number> {
    return listen(this.server, this.opts.port, this.opts.bindAddress);
  }

  stop(): Promise<void> {
    return closeGracefully(this.server, { drainMs: 0 });
  }

  /** Upstream's auth filter: undefined when the request may go on, else the refusal (401, 403, or 500 when the API server cannot be asked). */
  private async check(req: IncomingMessage, path: string): Promise<{ code: number; message: string } | undefined> {
    let user;
    try {
      user = await this.opts.auth.authenticate(req);
    } catch {
      return { code: 401, message: 'Unauthorized\n' };
    }
    if (!user) return { code: 401, message: 'Unauthorized\n' };
    const attrs = kubeletRequestAttributes(this.opts.nodeName, req.method ?? 'GET', path);
    try {
      const { allowed } = await this.opts.auth.authorize(user, attrs);
      if (!allowed) return { code: 403, message: `${kubeletForbiddenMessage(user, attrs)}\n` };
    } catch {
      return { code: 500, message: `Authorization error (user=${user.username}, verb=${attrs.verb}, resource=${attrs.resource}, subresource=${attrs.subresource})\n` };
    }
    return undefined;
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const path = new URL(req.url ?? '/', 'https://kubelet').pathname;
    try {
      const refused = await this.check(req, path);
      if (refused) return rawError(socket, refused.code, refused.message);
      if (!this.opts.streaming?.handles(path)) return rawError(socket, 404, '404 page not found');
      await this.opts.streaming.upgrade(req, socket, head);
    } catch (err) {
      if (!socket.destroyed) rawError(socket, 500, err instanceof Error ? err.message : String(err));
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    try {
      const refused = await this.check(req, url.pathname);
      if (refused) return text(res, refused.code, refused.message);
      if (parts[0] === 'healthz') return await serveHealth(res, '/healthz', url.searchParams, {});
      if (parts[0] === 'metrics' && parts[1] === 'resource' && parts.length === 2 && this.opts.stats) {
        const { summary, scrapeError } = await this.opts.stats.collect();
        return text(res, 200, renderResourceMetrics(summary, scrapeError), 'text/plain; version=0.0.4; charset=utf-8');
      }
      if (parts[0] === 'stats' && parts[1] === 'summary' && parts.length === 2 && this.opts.stats) {
        const { summary } = await this.opts.stats.collect({ fs: true });
        return text(res, 200, JSON.stringify(summary), 'application/json');
      }
      if (parts[0] === 'metrics' && parts.length === 1) return await serveMetrics(res, this.opts.metrics);
      if (parts[0] === 'pods' && parts.length === 1) return text(res, 200, JSON.stringify(this.opts.pods()), 'application/json');
      if (parts[0] === 'containerLogs' && (parts.length === 3 || parts.length === 4) && req.method === 'GET') {
        let opts;
        try {
          opts = parseLogOptions(url.searchParams);
        } catch (err) {
          if (err instanceof LogQueryError) return text(res, err.code, `${err.message}\n`);
          throw err;
        }
        const found = this.opts.locateLog(parts[1], parts[2], parts[3], opts.previous);
        if (!found) return text(res, 404, `pod ${parts[1]}/${parts[2]} not found on this node\n`);
        if ('error' in found) return text(res, 400, `${found.error}\n`);
        return await streamLogs(found.path, opts, res, found.running);
      }
      if (['exec', 'attach', 'portForward'].includes(parts[0])) return text(res, 400, `${parts[0]} needs an upgrade to a streaming protocol (WebSocket or SPDY/3.1)\n`);
      if (parts[0] === 'run') return text(res, 501, 'run is not implemented by this kubelet\n');
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

function rawError(socket: Duplex, code: number, message: string): void {
  socket.end(`HTTP/1.1 ${code} ${code === 401 ? 'Unauthorized' : code === 404 ? 'Not Found' : 'Internal Server Error'}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\nConnection: close\r\n\r\n${message}`);
}
