import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { ApiError, serviceUnavailable, timeout } from '../../machinery/api-error.js';
import type { ProxyLocation } from './proxy-location.js';
import { rewriteHtml, rewriteUrl, type LinkRewriter } from './rewrite-links.js';

/** One proxied request: where it goes and how its path maps. */
export interface ProxyTarget {
  location: ProxyLocation;
  /** The path after `/proxy` ('' for none), sent to the backend. */
  path: string;
  /** The request's path up to and including `/proxy` (upstream's PathPrepend). */
  prefix: string;
  /** The client certificate for the kubelet's own endpoint. */
  clientTls?: { certPem: string; keyPem: string };
  /** How long the backend may take to answer, and to stay silent while streaming (0: no limit). */
  timeoutMs: number;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** Credentials meant for the API server stay there (upstream drops them once authenticated). */
const NOT_FORWARDED = /^(authorization|impersonate-.*)$/i;
const CORS = new Set(['access-control-allow-credentials', 'access-control-allow-headers', 'access-control-allow-methods', 'access-control-allow-origin']);

const gunzip = promisify(zlib.gunzip);
const gzip = promisify(zlib.gzip);
const inflate = promisify(zlib.inflate);
const deflate = promisify(zlib.deflate);

function backendHost(loc: ProxyLocation): string {
  const host = net.isIPv6(loc.host) ? `[${loc.host}]` : loc.host;
  return loc.port === undefined ? host : `${host}:${loc.port}`;
}

/** The request headers the backend sees: the client's, less hop-by-hop and API-server credentials, plus X-Forwarded-*. */
function forwardedHeaders(req: IncomingMessage, forwardedUri: string, keepUpgrade: boolean): string[] {
  const connectionTokens = new Set(String(req.headers.connection ?? '').toLowerCase().split(',').map((t) => t.trim()).filter(Boolean));
  const out: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const key = req.rawHeaders[i];
    const lower = key.toLowerCase();
    const hop = HOP_BY_HOP.has(lower) || connectionTokens.has(lower);
    if (NOT_FORWARDED.test(key) || lower === 'x-forwarded-uri' || (hop && !(keepUpgrade && (lower === 'connection' || lower === 'upgrade')))) continue;
    if (lower === 'x-forwarded-for') continue;
    out.push(key, req.rawHeaders[i + 1]);
  }
  const prior = req.headers['x-forwarded-for'];
  const client = req.socket.remoteAddress ?? '';
  out.push('X-Forwarded-For', prior ? `${String(prior)}, ${client}` : client);
  out.push('X-Forwarded-Uri', forwardedUri);
  return out;
}

function backendPath(target: ProxyTarget, req: IncomingMessage): { path: string; query: string; forwardedUri: string } {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const query = q < 0 ? '' : raw.slice(q);
  const path = target.path || '/';
  const forwardedUri = target.prefix + (path === '/' ? '/' : path);
  return { path, query, forwardedUri };
}

/** GET or HEAD on `.../proxy` with nothing after it is sent to `.../proxy/` (upstream's redirect for the root path). */
function redirectsRoot(target: ProxyTarget, req: IncomingMessage, res: ServerResponse): boolean {
  if (target.path !== '' || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const location = `${q < 0 ? raw : raw.slice(0, q)}/${q < 0 ? '' : raw.slice(q)}`;
  res.writeHead(301, { Location: location, 'Content-Length': '0' });
  res.end();
  return true;
}

function dialError(err: NodeJS.ErrnoException, loc: ProxyLocation): ApiError {
  const where = backendHost(loc);
  const why = err.code === 'ECONNREFUSED' ? 'connect: connection refused' : err.code === 'EHOSTUNREACH' ? 'connect: no route to host' : err.message;
  return serviceUnavailable(`error trying to reach service: dial tcp ${where}: ${why}`);
}

const timedOut = () => timeout('Timeout: request did not complete within requested timeout - context deadline exceeded');

/**
 * Forwards one HTTP request to the backend and its answer back (upstream's
 * UpgradeAwareHandler with the rewriting Transport): Location headers and
 * HTML links are rewritten to go through the proxy, CORS headers dropped.
 * A backend that does not answer within the timeout gets a 504 Status; one
 * that answers and then goes silent for as long is cut.
 */
export async function forwardRequest(req: IncomingMessage, res: ServerResponse, target: ProxyTarget, signal: AbortSignal): Promise<void> {
  if (redirectsRoot(target, req, res)) return;
  const { location } = target;
  const { path, query, forwardedUri } = backendPath(target, req);
  const rewriter: LinkRewriter = { pathPrepend: target.prefix, backendHost: backendHost(location), requestHost: req.headers.host ?? '' };
  const request = location.scheme === 'https' ? https.request : http.request;
  const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
    const out = request({
      host: location.host,
      port: location.port ?? (location.scheme === 'https' ? 443 : 80),
      method: req.method,
      path: path + query,
      headers: forwardedHeaders(req, forwardedUri, false) as unknown as OutgoingHttpHeaders,
      setHost: false,
      agent: false,
      ...(location.scheme === 'https' ? { rejectUnauthorized: false, ...(target.clientTls ? { cert: target.clientTls.certPem, key: target.clientTls.keyPem } : {}) } : {}),
    });
    const timer = target.timeoutMs > 0 ? setTimeout(() => {
      out.destroy();
      reject(timedOut());
    }, target.timeoutMs) : undefined;
    const onAbort = () => out.destroy();
    signal.addEventListener('abort', onAbort, { once: true });
    out.once('response', (r) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(r);
    });
    out.once('error', (err) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      reject(err instanceof ApiError ? err : dialError(err, location));
    });
    req.pipe(out);
  });
  const headers = responseHeaders(upstream.headers, rewriter);
  const type = String(upstream.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'text/html' && !upstream.headers.location && req.method !== 'HEAD') {
    const body = await rewrittenHtml(upstream, rewriter, target.timeoutMs);
    if (body) {
      delete headers['content-length'];
      res.writeHead(upstream.statusCode ?? 502, { ...headers, 'content-length': String(body.length) });
      res.end(body);
      return;
    }
  }
  res.writeHead(upstream.statusCode ?? 502, headers);
  // a backend that goes quiet mid-stream is cut after the same timeout
  if (target.timeoutMs > 0) {
    upstream.socket.setTimeout(target.timeoutMs, () => {
      upstream.destroy();
      res.destroy();
    });
  }
  res.once('close', () => upstream.destroy());
  upstream.pipe(res);
  await new Promise<void>((resolve) => {
    upstream.once('end', resolve);
    upstream.once('close', resolve);
    upstream.once('error', resolve);
  });
}

function responseHeaders(incoming: IncomingHttpHeaders, rewriter: LinkRewriter): OutgoingHttpHeaders {
  const connectionTokens = new Set(String(incoming.connection ?? '').toLowerCase().split(',').map((t) => t.trim()));
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(incoming)) {
    if (v === undefined || HOP_BY_HOP.has(k) || connectionTokens.has(k) || CORS.has(k)) continue;
    out[k] = k === 'location' && typeof v === 'string' ? rewriteUrl(v, rewriter) : v;
  }
  return out;
}

/** The backend's HTML with its links rewritten, in the same content encoding; undefined for an encoding it cannot read. */
async function rewrittenHtml(upstream: IncomingMessage, rewriter: LinkRewriter, timeoutMs: number): Promise<Buffer | undefined> {
  if (timeoutMs > 0) upstream.socket.setTimeout(timeoutMs, () => upstream.destroy(new Error('backend went silent')));
  const chunks: Buffer[] = [];
  for await (const chunk of upstream) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const encoding = String(upstream.headers['content-encoding'] ?? '').toLowerCase();
  const rewrite = (html: Buffer) => Buffer.from(rewriteHtml(html.toString('utf8'), (u) => rewriteUrl(u, rewriter)), 'utf8');
  if (encoding === '') return rewrite(raw);
  if (encoding === 'gzip') return gzip(rewrite(await gunzip(raw)));
  if (encoding === 'deflate') return deflate(rewrite(await inflate(raw)));
  // an encoding we cannot read is passed on untouched (upstream logs and does the same)
  return raw;
}

/**
 * An upgrade (WebSocket, SPDY) through the proxy: the request is replayed to
 * the backend and the two connections spliced, whatever the backend answers.
 */
export async function forwardUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: ProxyTarget): Promise<void> {
  const { location } = target;
  const { path, query, forwardedUri } = backendPath(target, req);
  const port = location.port ?? (location.scheme === 'https' ? 443 : 80);
  const backend: net.Socket = location.scheme === 'https'
    ? tls.connect({ host: location.host, port, rejectUnauthorized: false, ...(target.clientTls ? { cert: target.clientTls.certPem, key: target.clientTls.keyPem } : {}) })
    : net.connect({ host: location.host, port });
  await new Promise<void>((resolve, reject) => {
    const timer = target.timeoutMs > 0 ? setTimeout(() => {
      backend.destroy();
      reject(timedOut());
    }, target.timeoutMs) : undefined;
    backend.once(location.scheme === 'https' ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      resolve();
    });
    backend.once('error', (err) => {
      clearTimeout(timer);
      reject(dialError(err, location));
    });
  });
  const headers = forwardedHeaders(req, forwardedUri, true);
  const lines = [`${req.method ?? 'GET'} ${path}${query} HTTP/1.1`];
  for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
  backend.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (head.length) backend.write(head);
  socket.pipe(backend).pipe(socket);
  const close = () => {
    socket.destroy();
    backend.destroy();
  };
  socket.on('error', close);
  backend.on('error', close);
  socket.on('close', close);
  backend.on('close', close);
}
