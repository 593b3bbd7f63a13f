import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { context, propagation } from '@opentelemetry/api';
import { TokenBucket } from '../flowcontrol/token-bucket.js';
import type { ClientCertificate, RestConfig } from './rest-config.js';
import { NetworkError } from './network-error.js';
import { secureContextFor } from './secure-context-cache.js';
import { apiErrorFromStatus } from './api-error-from-status.js';
import { realClock } from '../../base/clock.js';

export type QueryValue = string | number | boolean | undefined;

export interface RestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue>;
  /** Serialized as JSON unless it is already a string. */
  body?: unknown;
  contentType?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface RestClientOptions {
  /** Sent as `skiff/<component>` in User-Agent. */
  component?: string;
  /**
   * Client-side rate limit; overrides config.qps/burst. Defaults are client-go's
   * 5 qps, burst 10, which suit one small controller; busy components (a
   * controller manager, a scheduler) want more, e.g. 50/100. A negative qps
   * disables limiting.
   */
  qps?: number;
  burst?: number;
  /** Overrides the rate limiter built from qps/burst (null disables it). */
  rateLimiter?: TokenBucket | null;
  /** How many times to retry an answer with Retry-After (429, 5xx); client-go uses 10. */
  maxRetries?: number;
}

const TOKEN_FILE_TTL_MS = 60_000;

/** client-go's rest.Config defaults (DefaultQPS, DefaultBurst). */
export const DEFAULT_QPS = 5;
export const DEFAULT_BURST = 10;

/** The token bucket for a qps/burst pair: unset or 0 means the defaults, a negative qps means none. */
export function rateLimiterFor(qps: number | undefined, burst: number | undefined): TokenBucket | null {
  const q = qps || DEFAULT_QPS;
  if (q < 0) return null;
  return new TokenBucket({ qps: q, burst: burst && burst > 0 ? burst : DEFAULT_BURST });
}

/**
 * HTTP(S) transport for the Kubernetes API: one keep-alive agent (connection
 * pooling), JSON in and out, client-side rate limiting, and error answers
 * decoded into ApiError. Streams (watch) are rate limited when they start only.
 */
export class RestClient {
  readonly config: RestConfig;
  private agent: http.Agent;
  /** The pair the agent was built with, when the config has a certificateSource. */
  private agentCertificate?: ClientCertificate;
  private readonly base: URL;
  /** The server's protocol, host and port as request options (see target). */
  private readonly endpoint: { protocol: string; hostname: string; port?: string };
  private readonly userAgent: string;
  /** The client-side rate limiter every request waits on (null: unlimited). */
  readonly limiter: TokenBucket | null;
  private readonly maxRetries: number;
  private cachedToken?: { value: string; readAt: number };

  constructor(config: RestConfig, options: RestClientOptions = {}) {
    this.config = config;
    this.base = new URL(config.server);
    // as url.urlToHttpOptions: an IPv6 literal without its brackets
    const hostname = this.base.hostname.startsWith('[') ? this.base.hostname.slice(1, -1) : this.base.hostname;
    this.endpoint = { protocol: this.base.protocol, hostname, ...(this.base.port ? { port: this.base.port } : {}) };
    this.userAgent = `skiff/${options.component ?? 'client'}`;
    this.maxRetries = options.maxRetries ?? 10;
    this.limiter = options.rateLimiter !== undefined ? options.rateLimiter : rateLimiterFor(options.qps ?? config.qps, options.burst ?? config.burst);
    this.agentCertificate = config.certificateSource?.();
    this.agent = this.newAgent(this.agentCertificate);
  }

  private newAgent(pair: ClientCertificate | undefined): http.Agent {
    if (this.base.protocol !== 'https:') return new http.Agent({ keepAlive: true });
    const { ca, cert, key } = { ...this.config, ...pair };
    return new https.Agent({
      keepAlive: true,
      secureContext: secureContextFor({ ca, cert, key }),
      rejectUnauthorized: !this.config.insecureSkipTLSVerify,
      servername: this.config.tlsServerName,
    });
  }

  /** The agent for the next request: a new one (and the old one's connections closed) once the certificate source answers a new pair. */
  private currentAgent(): http.Agent {
    const source = this.config.certificateSource;
    if (!source) return this.agent;
    const pair = source();
    if (pair === this.agentCertificate || (pair.cert.toString() === this.agentCertificate?.cert.toString() && pair.key.toString() === this.agentCertificate.key.toString())) return this.agent;
    const old = this.agent;
    this.agentCertificate = pair;
    this.agent = this.newAgent(pair);
    // as upstream's kubelet on rotation: existing connections (watches too) end, and their reconnects present the new certificate
    old.destroy();
    return this.agent;
  }

  /** Sends a request and returns the decoded JSON body; throws ApiError or NetworkError. */
  request<T = unknown>(req: RestRequest): Promise<T> {
    return this.exchange<T>(req, true);
  }

  /**
   * Sends a request whose answer the caller does not read (client-go's
   * `Do().Error()`): the same retries and errors as request, but a success's
   * body is not decoded (a status write's answer is the whole object).
   */
  async requestError(req: RestRequest): Promise<void> {
    await this.exchange(req, false);
  }

  private async exchange<T>(req: RestRequest, decode: boolean): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      await this.limiter?.wait(req.signal);
      const res = await this.send(req, this.config.timeoutMs);
      const text = await readBody(res);
      const code = res.statusCode ?? 0;
      if (code >= 200 && code < 300) return (text && decode ? JSON.parse(text) : undefined) as T;
      const retryAfter = Number(res.headers['retry-after']);
      if ((code === 429 || code >= 500) && retryAfter >= 0 && attempt < this.maxRetries && !req.signal?.aborted) {
        await realClock.sleep(retryAfter * 1000, req.signal);
        continue;
      }
      throw apiErrorFromStatus(code, parseMaybe(text));
    }
  }

  /** Starts a streaming request (watch) and returns the response once headers arrive with 2xx. */
  async stream(req: RestRequest): Promise<IncomingMessage> {
    await this.limiter?.wait(req.signal);
    const res = await this.send(req, 0);
    const code = res.statusCode ?? 0;
    if (code >= 200 && code < 300) return res;
    throw apiErrorFromStatus(code, parseMaybe(await readBody(res)));
  }

  /** Closes pooled connections. */
  close(): void {
    this.agent.destroy();
  }

  private send(req: RestRequest, timeoutMs?: number): Promise<IncomingMessage> {
    const target = this.target(req);
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': this.userAgent, ...req.headers };
    // the current span (a reconcile, a kubelet sync) becomes the parent of the API server's span for this request
    propagation.inject(context.active(), headers);
    const auth = this.authorization();
    if (auth) headers.Authorization = auth;
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const mod = this.base.protocol === 'https:' ? https : http;
    const agent = this.currentAgent();
    const signal = req.signal;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const options = typeof target === 'string' ? { ...this.endpoint, path: target, method: req.method, headers, agent } : { method: req.method, headers, agent };
      const r = typeof target === 'string' ? mod.request(options, resolve) : mod.request(target, options, resolve);
      if (signal) abortOnSignal(signal, r);
      if (timeoutMs) {
        r.setTimeout(timeoutMs, () => r.destroy(new NetworkError(`request timed out after ${timeoutMs}ms`, 'ETIMEDOUT')));
      }
      r.on('error', (err: NodeJS.ErrnoException) => {
        if (signal?.aborted) reject(signal.reason);
        else if (err instanceof NetworkError) reject(err);
        else reject(new NetworkError(`${req.method} ${req.path.split('?')[0]}: ${err.message}`, err.code, { cause: err }));
      });
      r.end(payload);
    });
  }

  /**
   * The request's path and query on the server, without parsing a URL for the
   * common case (an absolute path of plain characters); anything else is
   * resolved against the server URL as before.
   */
  private target(req: RestRequest): string | URL {
    if (PLAIN_PATH.test(req.path)) {
      let query = '';
      if (req.query) {
        const params = new URLSearchParams();
        for (const k in req.query) {
          const v = req.query[k];
          if (v !== undefined) params.set(k, String(v));
        }
        query = params.toString();
      }
      return query ? `${req.path}?${query}` : req.path;
    }
    const url = new URL(req.path, this.base);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  private authorization(): string | undefined {
    if (this.config.token) return `Bearer ${this.config.token}`;
    if (this.config.tokenSource) return `Bearer ${this.config.tokenSource()}`;
    if (this.config.tokenFile) {
      const now = Date.now();
      if (!this.cachedToken || now - this.cachedToken.readAt > TOKEN_FILE_TTL_MS) {
        this.cachedToken = { value: readFileSync(this.config.tokenFile, 'utf8').trim(), readAt: now };
      }
      return `Bearer ${this.cachedToken.value}`;
    }
    if (this.config.username !== undefined) {
      return `Basic ${Buffer.from(`${this.config.username}:${this.config.password ?? ''}`).toString('base64')}`;
    }
    return undefined;
  }
}

/** An absolute path that a URL would keep as it is: no dot segments, query, fragment or characters it would escape. */
const PLAIN_PATH = /^(?!.*\/\.\.?(?:\/|$))(?!.*%2e)\/[A-Za-z0-9\-._~%!$&'()*+,;=:@/]*$/i;

/** The requests in flight per signal: one abort listener per signal, not one per request (see abortOnSignal). */
const inFlight = new WeakMap<AbortSignal, Set<http.ClientRequest>>();

/**
 * Destroys the request (and its response) if the signal aborts, as the
 * `signal` request option does, but with one listener per signal for all of
 * its requests: a controller's workers send every request under the same
 * long-lived signal, and adding and removing a listener each time costs more
 * than the rest of the bookkeeping of a request.
 */
function abortOnSignal(signal: AbortSignal, r: http.ClientRequest): void {
  let requests = inFlight.get(signal);
  if (!requests) {
    const set = new Set<http.ClientRequest>();
    inFlight.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        const err = Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError', code: 'ABORT_ERR' });
        for (const req of set) req.destroy(err);
        set.clear();
      },
      { once: true },
    );
    requests = set;
  }
  const set = requests;
  set.add(r);
  r.once('close', () => set.delete(r));
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', (err) => reject(new NetworkError(`reading response: ${err.message}`, undefined, { cause: err })));
  });
}

function parseMaybe(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
