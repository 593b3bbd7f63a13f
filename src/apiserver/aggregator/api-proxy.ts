import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import https from 'node:https';
import type { APIService } from '../../api/types/apiregistration/v1.js';
import { ApiError } from '../../machinery/api-error.js';
import type { UserInfo } from '../authentication/user-info.js';
import type { ApiRegistry } from '../api-registry.js';
import { describeBackendError, resolveBackend, type ProxyClientCertificate } from './backend.js';

/** Hop-by-hop headers and the client's credentials never go to the backend, nor do request headers a client could forge. */
const DROPPED_REQUEST_HEADERS = /^(?:host|connection|keep-alive|proxy-.*|te|trailer|transfer-encoding|upgrade|authorization|impersonate-.*|x-remote-.*)$/i;
const DROPPED_RESPONSE_HEADERS = /^(?:connection|keep-alive|proxy-.*|te|trailer|transfer-encoding|upgrade)$/i;

export interface ApiProxyOptions {
  registry: ApiRegistry;
  proxyClient?: ProxyClientCertificate;
  /** Told when a backend could not be reached, so its availability is checked again soon. */
  onBackendFailure?: (svc: APIService) => void;
}

/**
 * Upstream's proxy handler of the aggregator: a request for a remote
 * APIService's group/version goes, after this server's authentication and
 * authorization, to an endpoint of its Service over TLS with the front-proxy
 * client certificate and the user in `X-Remote-User`, `X-Remote-Group` and
 * `X-Remote-Extra-<key>`. Bodies stream both ways, so watches pass through.
 * An APIService not Available answers 503 `service unavailable` as plain
 * text, as upstream; an unreachable backend 503 with the dial error.
 */
export class ApiProxy {
  constructor(private readonly opts: ApiProxyOptions) {}

  async serve(svc: APIService, available: boolean, req: IncomingMessage, res: ServerResponse, user: UserInfo, signal: AbortSignal): Promise<void> {
    if (!available) return plainError(res, 503, 'service unavailable');
    let backend;
    try {
      backend = await resolveBackend(this.opts.registry, svc, this.opts.proxyClient);
    } catch (err) {
      if (err instanceof ApiError && err.code === 503) return plainError(res, 503, 'service unavailable');
      throw err;
    }
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !DROPPED_REQUEST_HEADERS.test(name)) headers[name] = value;
    Object.assign(headers, identityHeaders(user));
    const forwarded = req.socket.remoteAddress;
    if (forwarded) headers['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${String(req.headers['x-forwarded-for'])}, ${forwarded}` : forwarded;
    await new Promise<void>((resolve) => {
      const out = https.request(
        { host: backend.host, port: backend.port, method: req.method, path: req.url, headers, agent: false, ...backend.tls, signal },
        (answer) => {
          const responseHeaders: OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !DROPPED_RESPONSE_HEADERS.test(name)) responseHeaders[name] = value;
          res.writeHead(answer.statusCode ?? 502, responseHeaders);
          // a watch's events must reach the client as they come
          res.flushHeaders();
          answer.pipe(res);
          answer.on('end', resolve);
          answer.on('error', () => (res.destroy(), resolve()));
          res.on('close', () => (answer.destroy(), resolve()));
        },
      );
      out.on('error', (err: NodeJS.ErrnoException) => {
        if (!res.headersSent) {
          this.opts.onBackendFailure?.(svc);
          plainError(res, 503, describeBackendError(err, backend));
        } else res.destroy();
        resolve();
      });
      req.pipe(out);
    });
  }
}

/** The authenticated user as request headers, as upstream's SetAuthProxyHeaders writes them (extra keys percent-encoded). */
export function identityHeaders(user: UserInfo): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'X-Remote-User': user.name };
  if (user.groups.length) headers['X-Remote-Group'] = [...user.groups];
  if (user.uid) headers['X-Remote-Uid'] = user.uid;
  for (const [key, values] of Object.entries(user.extra ?? {})) headers[`X-Remote-Extra-${encodeURIComponent(key)}`] = [...values];
  return headers;
}

function plainError(res: ServerResponse, code: number, message: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(`${message}\n`);
}
