import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ApiError } from '../machinery/api-error.js';
import type { TestApiServer } from './test-api-server.js';

/** A request as the client sent it (the body parsed as JSON when it is JSON). */
export interface RecordedRequest {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

type Match = (request: RecordedRequest) => boolean;

interface OpenWatch {
  res: http.ServerResponse;
  upstream: http.ClientRequest;
  bookmarks: boolean;
  /** The resourceVersion of the last event forwarded. */
  lastResourceVersion: string;
}

/**
 * A plain-HTTP loopback proxy in front of a test API server, for client tests
 * that need to see what went over the wire or to break it: it records every
 * request, answers chosen ones with an error or not at all, and cuts watch
 * connections. Everything else reaches the real server as the admin user.
 */
export class FaultProxy {
  readonly requests: RecordedRequest[] = [];
  /** Watches the server has accepted so far (tests wait on it). */
  watchesStarted = 0;
  private readonly server = http.createServer((req, res) => void this.handle(req, res));
  private readonly agent: https.Agent;
  private readonly target: URL;
  private readonly watches = new Set<OpenWatch>();
  private readonly stalledResponses = new Set<http.ServerResponse>();
  private injected: { match: Match; error: ApiError; retryAfter?: number | undefined; times: number }[] = [];
  private stalled: { match: Match; times: number }[] = [];
  private held: { match: Match; parked: (() => void)[] }[] = [];

  constructor(api: Pick<TestApiServer, 'url' | 'restConfig'>) {
    this.target = new URL(api.url);
    const { ca, cert, key } = api.restConfig;
    this.agent = new https.Agent({ keepAlive: true, ca, cert, key });
  }

  /** Starts listening; resolves with the proxy's URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.dropWatches();
    for (const res of this.stalledResponses) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
  }

  /** The next `times` requests matching `match` are answered with `error` (and `Retry-After` when given). */
  failNext(match: Match, error: ApiError, options: { times?: number; retryAfter?: number } = {}): void {
    this.injected.push({ match, error, retryAfter: options.retryAfter, times: options.times ?? 1 });
  }

  /** The next `times` requests matching `match` get no answer at all (a hung server) until the client gives up. */
  stallNext(match: Match, options: { times?: number } = {}): void {
    this.stalled.push({ match, times: options.times ?? 1 });
  }

  /**
   * Parks requests matching `match` (they reach the server only later) until
   * the returned function is called, e.g. to change the world while a
   * client is reconnecting.
   */
  hold(match: Match): () => void {
    const entry = { match, parked: [] as (() => void)[] };
    this.held.push(entry);
    return () => {
      this.held = this.held.filter((e) => e !== entry);
      for (const forward of entry.parked) forward();
    };
  }

  clearFailures(): void {
    this.injected = [];
    this.stalled = [];
  }

  /** Cuts every open watch connection mid-stream. */
  dropWatches(): void {
    for (const watch of this.watches) {
      watch.res.destroy();
      watch.upstream.destroy();
    }
    this.watches.clear();
  }

  /**
   * Sends a BOOKMARK at each watch's last forwarded resourceVersion to the
   * watches that allow bookmarks, as the server does on its own timer.
   */
  sendBookmark(kind = 'Object'): void {
    for (const watch of this.watches) {
      if (!watch.bookmarks || !watch.lastResourceVersion) continue;
      watch.res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind, metadata: { resourceVersion: watch.lastResourceVersion } } })}\n`);
    }
  }

  watcherCount(): number {
    return this.watches.size;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', this.target);
    const recorded: RecordedRequest = { method: req.method ?? 'GET', url, headers: req.headers, body: parseBody(raw) };
    this.requests.push(recorded);
    if (take(this.stalled, recorded)) {
      this.stalledResponses.add(res);
      res.once('close', () => this.stalledResponses.delete(res));
      return;
    }
    const injected = take(this.injected, recorded);
    if (injected) {
      const body = JSON.stringify(injected.error.toStatus());
      const headers: http.OutgoingHttpHeaders = { 'Content-Type': 'application/json' };
      if (injected.retryAfter !== undefined) headers['Retry-After'] = String(injected.retryAfter);
      res.writeHead(injected.error.code, headers).end(body);
      return;
    }
    const hold = this.held.find((e) => e.match(recorded));
    if (hold) hold.parked.push(() => this.forward(req, res, url, raw));
    else this.forward(req, res, url, raw);
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer): void {
    const headers = { ...req.headers, host: this.target.host };
    delete headers.authorization;
    const isWatch = ['true', '1'].includes(url.searchParams.get('watch') ?? '');
    const upstream = https.request({ agent: this.agent, host: this.target.hostname, port: this.target.port, method: req.method, path: url.pathname + url.search, headers });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (isWatch && answer.statusCode === 200) {
        const watch: OpenWatch = { res, upstream, bookmarks: url.searchParams.get('allowWatchBookmarks') === 'true', lastResourceVersion: url.searchParams.get('resourceVersion') ?? '' };
        this.watches.add(watch);
        this.watchesStarted++;
        res.once('close', () => {
          this.watches.delete(watch);
          upstream.destroy();
        });
        res.flushHeaders();
        forwardLines(answer, watch);
        return;
      }
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  }
}

/** Forwards a JSON watch stream whole line by whole line, so injected bookmarks never split an event. */
function forwardLines(answer: http.IncomingMessage, watch: OpenWatch): void {
  let pending = '';
  answer.setEncoding('utf8');
  answer.on('data', (chunk: string) => {
    pending += chunk;
    const end = pending.lastIndexOf('\n');
    if (end < 0) return;
    const lines = pending.slice(0, end + 1);
    pending = pending.slice(end + 1);
    for (const line of lines.split('\n')) {
      const rv = /"resourceVersion":"([^"]*)"/.exec(line)?.[1];
      if (rv) watch.lastResourceVersion = rv;
    }
    watch.res.write(lines);
  });
  answer.on('end', () => watch.res.end(pending));
  answer.on('error', () => watch.res.destroy());
}

function take<T extends { match: Match; times: number }>(entries: T[], request: RecordedRequest): T | undefined {
  const entry = entries.find((e) => e.times > 0 && e.match(request));
  if (entry) entry.times--;
  return entry;
}

function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
