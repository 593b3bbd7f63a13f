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
  private readonly userAgent: string;
  /** The client-side rate limiter every request waits on (null: unlimited). */
  readonly limiter: TokenBucket | null;
  private readonly maxRetries: number;
  private cachedToken?: { value: string; readAt: number };

  constructor(config: RestConfig, options: RestClientOptions = {}) {
    this.config = config;
    this.base = new URL(config.server);
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
  async request<T = unknown>(req: RestRequest): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      await this.limiter?.wait(req.signal);
      const res = await this.send(req, this.config.timeoutMs);
      const text = await readBody(res);
      const code = res.statusCode ?? 0;
      if (code >= 200 && code < 300) return (text ? JSON.parse(text) : undefined) as T;
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
    const url = new URL(req.path, this.base);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
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
    const mod = url.protocol === 'https:' ? https : http;
    const agent = this.currentAgent();
    return new Promise((resolve, reject) => {
      if (req.signal?.aborted) return reject(req.signal.reason);
      const r = mod.request(url, { method: req.method, headers, agent, signal: req.signal }, resolve);
      if (timeoutMs) {
        r.setTimeout(timeoutMs, () => r.destroy(new NetworkError(`request timed out after ${timeoutMs}ms`, 'ETIMEDOUT')));
      }
      r.on('error', (err: NodeJS.ErrnoException) => {
        if (req.signal?.aborted) reject(req.signal.reason);
        else if (err instanceof NetworkError) reject(err);
        else reject(new NetworkError(`${req.method} ${url.pathname}: ${err.message}`, err.code, { cause: err }));
      });
      r.end(payload);
    });
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
