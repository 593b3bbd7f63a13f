import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { KubeObject } from '../../api/object.js';
import type { ApiObject } from '../rest/api-object.js';
import { ApiError, conflict, expired, notFound, alreadyExists, badRequest } from '../../machinery/api-error.js';

interface Target {
  group: string;
  version: string;
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

interface Change {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  collection: string;
  obj: KubeObject;
}

interface Watcher {
  collection: string;
  namespace?: string;
  labels: Record<string, string>;
  bookmarks: boolean;
  res: http.ServerResponse;
}

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/**
 * Just enough of an API server for client tests: an in-memory object map per
 * resource with a global resourceVersion, list with limit/continue, watch with
 * history replay and bookmarks, create/update/patch(merge)/delete, status,
 * binding and scale subresources. Knobs let tests compact history (410),
 * drop watch connections, and inject error answers.
 */
export class FakeApiServer {
  readonly requests: RecordedRequest[] = [];
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly history: Change[] = [];
  private readonly watchers = new Set<Watcher>();
  /** How many watches have been established so far (tests wait on it). */
  watchesStarted = 0;
  private rv = 100;
  private compactedRv = 0;
  private stalled: { match: (r: RecordedRequest) => boolean; times: number }[] = [];
  private injected: { match: (r: RecordedRequest) => boolean; error: ApiError; retryAfter?: number; times: number }[] = [];

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.dropWatches();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  get resourceVersion(): string {
    return String(this.rv);
  }

  /** Forgets history: watches from resourceVersions older than the current one and old continue tokens get 410. */
  compact(): void {
    this.compactedRv = this.rv;
  }

  /** Cuts every open watch connection mid-stream. */
  dropWatches(): void {
    for (const w of this.watchers) w.res.destroy();
    this.watchers.clear();
  }

  /** Sends a BOOKMARK at the current resourceVersion to watchers that asked for them. */
  sendBookmark(kind = 'Object'): void {
    for (const w of this.watchers) {
      if (w.bookmarks) w.res.write(JSON.stringify({ type: 'BOOKMARK', object: { kind, metadata: { resourceVersion: String(this.rv) } } }) + '\n');
    }
  }

  /** The next `times` requests matching `match` are answered with `error`. */
  failNext(match: (r: RecordedRequest) => boolean, error: ApiError, options: { times?: number; retryAfter?: number } = {}): void {
    this.injected.push({ match, error, retryAfter: options.retryAfter, times: options.times ?? 1 });
  }

  /** Writes an object directly (no HTTP), as another client would. `collection` is `group/resource`. */
  put(collection: string, input: ApiObject): KubeObject {
    const obj = input as KubeObject;
    const key = `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name}`;
    const exists = this.collection(collection).has(key);
    const uid = this.collection(collection).get(key)?.metadata?.uid ?? randomUUID();
    return this.write(collection, key, { ...obj, metadata: { ...obj.metadata, uid } }, exists ? 'MODIFIED' : 'ADDED');
  }

  /** Deletes an object directly (no HTTP). */
  erase(collection: string, namespace: string | undefined, name: string): void {
    const key = `${namespace ?? ''}/${name}`;
    const obj = this.collection(collection).get(key);
    if (obj) this.remove(collection, key, obj);
  }

  /** The next `times` requests matching `match` get no answer at all (a hung server) until the client gives up. */
  stallNext(match: (r: RecordedRequest) => boolean, options: { times?: number } = {}): void {
    this.stalled.push({ match, times: options.times ?? 1 });
  }

  clearFailures(): void {
    this.injected = [];
    this.stalled = [];
  }

  watcherCount(): number {
    return this.watchers.size;
  }

  /** Direct view of stored objects of one resource (`group/resource`, e.g. `/pods`). */
  stored(collection: string): KubeObject[] {
    return [...(this.objects.get(collection)?.values() ?? [])];
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const recorded: RecordedRequest = { method: req.method ?? 'GET', url, headers: req.headers, body: text ? JSON.parse(text) : undefined };
    this.requests.push(recorded);
    const stall = this.stalled.find((st) => st.times > 0 && st.match(recorded));
    if (stall) {
      stall.times--;
      return; // close() drops the connection
    }
    try {
      const inj = this.injected.find((i) => i.times > 0 && i.match(recorded));
      if (inj) {
        inj.times--;
        if (inj.retryAfter !== undefined) res.setHeader('Retry-After', String(inj.retryAfter));
        throw inj.error;
      }
      const t = parsePath(url.pathname);
      if (!t) throw notFound({ group: '', resource: 'path' }, url.pathname);
      const out = this.serve(recorded, t, res);
      if (out !== undefined) send(res, 200, out);
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError(500, 'InternalError', String(err));
      send(res, e.code, e.toStatus());
    }
  }

  private serve(r: RecordedRequest, t: Target, res: http.ServerResponse): unknown {
    const collection = `${t.group}/${t.resource}`;
    const gr = { group: t.group, resource: t.resource };
    const items = this.collection(collection);
    const key = `${t.namespace ?? ''}/${t.name}`;
    const body = r.body as KubeObject | undefined;
    if (r.method === 'GET' && t.name === undefined) {
      if (r.url.searchParams.get('watch') === 'true' || r.url.searchParams.get('watch') === '1') return this.watch(r, t, collection, res);
      return this.list(r, t, items);
    }
    if (r.method === 'DELETE' && t.name === undefined) {
      for (const [k, o] of items) if (this.selected(o, t.namespace, r.url.searchParams.get('labelSelector'))) this.remove(collection, k, o);
      return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
    }
    if (r.method === 'POST' && t.name === undefined) {
      const name = body?.metadata?.name || (body?.metadata?.generateName ? body.metadata.generateName + randomUUID().slice(0, 5) : '');
      if (!body || !name) throw badRequest('name or generateName is required');
      const k = `${t.namespace ?? ''}/${name}`;
      if (items.has(k)) throw alreadyExists(gr, name);
      const obj = { ...body, metadata: { ...body.metadata, name, namespace: t.namespace, uid: randomUUID(), creationTimestamp: new Date().toISOString() } };
      return this.write(collection, k, obj, 'ADDED');
    }
    const current = items.get(key);
    if (r.method === 'PATCH' && !current && r.headers['content-type'] === 'application/apply-patch+yaml') {
      return this.write(collection, key, { ...body, metadata: { ...body?.metadata, namespace: t.namespace, uid: randomUUID() } }, 'ADDED');
    }
    if (!current || t.name === undefined) throw notFound(gr, t.name ?? '');
    switch (`${r.method} ${t.subresource ?? ''}`) {
      case 'GET ':
        return current;
      case 'PUT ':
      case 'PUT status': {
        if (!body) throw badRequest('body required');
        const want = body.metadata?.resourceVersion;
        if (want && want !== current.metadata?.resourceVersion) throw conflict(gr, t.name, 'the object has been modified; please apply your changes to the latest version and try again');
        const next = t.subresource === 'status' ? { ...current, status: body.status } : { ...body, status: current.status, metadata: { ...body.metadata, uid: current.metadata?.uid, namespace: t.namespace } };
        return this.write(collection, key, next, 'MODIFIED');
      }
      case 'PATCH ':
      case 'PATCH status':
        return this.write(collection, key, mergePatch(current, body) as KubeObject, 'MODIFIED');
      case 'DELETE ':
        this.remove(collection, key, current);
        return current;
      case 'POST binding': {
        const target = (body as { target?: { name?: string } } | undefined)?.target?.name;
        this.write(collection, key, { ...current, spec: { ...(current.spec as object), nodeName: target } }, 'MODIFIED');
        return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
      }
      case 'GET scale':
        return scaleOf(current);
      case 'PUT scale': {
        const replicas = (body as { spec?: { replicas?: number } } | undefined)?.spec?.replicas;
        const next = this.write(collection, key, { ...current, spec: { ...(current.spec as object), replicas } }, 'MODIFIED');
        return scaleOf(next);
      }
      default:
        throw new ApiError(405, 'MethodNotAllowed', `${r.method} ${t.subresource ?? ''} is not supported by the fake`);
    }
  }

  private list(r: RecordedRequest, t: Target, items: Map<string, KubeObject>): unknown {
    const limit = Number(r.url.searchParams.get('limit') ?? 0);
    const cont = r.url.searchParams.get('continue');
    let after = '';
    let listRv = this.rv;
    if (cont) {
      const token = JSON.parse(Buffer.from(cont, 'base64').toString()) as { key: string; rv: number };
      if (token.rv < this.compactedRv) throw expired('The provided continue parameter is too old to display a consistent list result.');
      after = token.key;
      listRv = token.rv;
    }
    const all = [...items.entries()]
      .filter(([k, o]) => k > after && this.selected(o, t.namespace, r.url.searchParams.get('labelSelector')))
      .sort(([a], [b]) => (a < b ? -1 : 1));
    const page = limit > 0 ? all.slice(0, limit) : all;
    const metadata: Record<string, string> = { resourceVersion: String(listRv) };
    if (limit > 0 && all.length > limit) {
      metadata.continue = Buffer.from(JSON.stringify({ key: page[page.length - 1][0], rv: listRv })).toString('base64');
    }
    return { kind: 'List', apiVersion: 'v1', metadata, items: page.map(([, o]) => o) };
  }

  private watch(r: RecordedRequest, t: Target, collection: string, res: http.ServerResponse): undefined {
    const q = r.url.searchParams;
    const w: Watcher = { collection, namespace: t.namespace, labels: parseLabels(q.get('labelSelector')), bookmarks: q.get('allowWatchBookmarks') === 'true', res };
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    // Real servers send headers at once so the client knows the watch started.
    res.flushHeaders();
    const from = q.get('resourceVersion');
    if (from && from !== '0' && Number(from) < this.compactedRv) {
      res.end(JSON.stringify({ type: 'ERROR', object: expired(`too old resource version: ${from} (${this.compactedRv})`).toStatus() }) + '\n');
      return undefined;
    }
    if (!from || from === '0') {
      for (const o of this.collection(collection).values()) if (this.matches(w, o)) res.write(JSON.stringify({ type: 'ADDED', object: o }) + '\n');
    } else {
      for (const c of this.history) if (c.rv > Number(from) && c.collection === collection && this.matches(w, c.obj)) res.write(JSON.stringify({ type: c.type, object: c.obj }) + '\n');
    }
    this.watchers.add(w);
    this.watchesStarted++;
    const timeout = Number(q.get('timeoutSeconds') ?? 0);
    const timer = timeout > 0 ? setTimeout(() => res.end(), timeout * 1000) : undefined;
    res.on('close', () => {
      clearTimeout(timer);
      this.watchers.delete(w);
    });
    return undefined;
  }

  private write(collection: string, key: string, obj: KubeObject, type: 'ADDED' | 'MODIFIED'): KubeObject {
    this.rv++;
    const stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(this.rv) } };
    this.collection(collection).set(key, stored);
    this.publish({ rv: this.rv, type, collection, obj: stored });
    return stored;
  }

  private remove(collection: string, key: string, obj: KubeObject): void {
    this.rv++;
    this.collection(collection).delete(key);
    this.publish({ rv: this.rv, type: 'DELETED', collection, obj: { ...obj, metadata: { ...obj.metadata, resourceVersion: String(this.rv) } } });
  }

  private publish(c: Change): void {
    this.history.push(c);
    for (const w of this.watchers) {
      if (w.collection === c.collection && this.matches(w, c.obj)) w.res.write(JSON.stringify({ type: c.type, object: c.obj }) + '\n');
    }
  }

  private matches(w: Watcher, o: KubeObject): boolean {
    return (!w.namespace || o.metadata?.namespace === w.namespace) && Object.entries(w.labels).every(([k, v]) => o.metadata?.labels?.[k] === v);
  }

  private selected(o: KubeObject, namespace: string | undefined, selector: string | null): boolean {
    return (!namespace || o.metadata?.namespace === namespace) && Object.entries(parseLabels(selector)).every(([k, v]) => o.metadata?.labels?.[k] === v);
  }

  private collection(name: string): Map<string, KubeObject> {
    let c = this.objects.get(name);
    if (!c) this.objects.set(name, (c = new Map()));
    return c;
  }
}

function parsePath(pathname: string): Target | undefined {
  const s = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let rest: string[];
  let group = '';
  let version: string;
  if (s[0] === 'api') [version, rest] = [s[1], s.slice(2)];
  else if (s[0] === 'apis') [group, version, rest] = [s[1], s[2], s.slice(3)];
  else return undefined;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) [namespace, rest] = [rest[1], rest.slice(2)];
  if (!rest[0]) return undefined;
  return { group, version, namespace, resource: rest[0], name: rest[1], subresource: rest[2] };
}

/** Equality-only selectors (`a=b,c=d`): all the fake needs. */
function parseLabels(selector: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (selector ?? '').split(',').filter(Boolean)) {
    const [k, v] = part.split('=');
    out[k.trim()] = (v ?? '').trim();
  }
  return out;
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function scaleOf(o: KubeObject): unknown {
  const replicas = (o.spec as { replicas?: number } | undefined)?.replicas ?? 0;
  return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: o.metadata?.name, namespace: o.metadata?.namespace, resourceVersion: o.metadata?.resourceVersion }, spec: { replicas }, status: { replicas } };
}

function send(res: http.ServerResponse, code: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}
