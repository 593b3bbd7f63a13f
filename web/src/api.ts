/** The dashboard's API client: the same REST paths and watch streams kubectl uses, with the session's token. */

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
  deletionTimestamp?: string;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- objects of every kind are shown
  spec?: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  status?: any;
}

export interface ObjectList<T> {
  metadata: { resourceVersion?: string };
  items: T[];
}

/** A failed API call: the Status the server answered, or a network failure (code 0). */
export class ApiFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly reason = '',
  ) {
    super(message);
  }
}

let token = '';

export function setToken(value: string): void {
  token = value;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { Accept: 'application/json', Authorization: `Bearer ${token}`, ...extra };
}

async function failure(res: Response): Promise<ApiFailure> {
  const text = await res.text();
  try {
    const status = JSON.parse(text) as { message?: string; reason?: string };
    return new ApiFailure(res.status, status.message ?? `${res.status} ${res.statusText}`, status.reason ?? '');
  } catch {
    return new ApiFailure(res.status, text.trim() || `${res.status} ${res.statusText}`);
  }
}

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers: headers(init.headers as Record<string, string> | undefined) });
  } catch (err) {
    if (init.signal?.aborted) throw err;
    throw new ApiFailure(0, `the API server cannot be reached: ${String(err)}`);
  }
  if (!res.ok) throw await failure(res);
  return res;
}

export async function apiGet<T>(path: string, signal?: AbortSignal): Promise<T> {
  return (await (await call(path, { signal })).json()) as T;
}

export async function apiGetText(path: string, signal?: AbortSignal): Promise<string> {
  return (await call(path, { signal, headers: { Accept: 'text/plain, */*' } })).text();
}

export async function apiPost<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const res = await call(path, { method: 'POST', body: JSON.stringify(body), signal, headers: { 'Content-Type': 'application/json' } });
  return (await res.json()) as T;
}

export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/** A watch stream: newline-delimited JSON events until the server or the signal ends it. */
export async function* watch<T>(path: string, resourceVersion: string, signal: AbortSignal): AsyncGenerator<WatchEvent<T>> {
  const sep = path.includes('?') ? '&' : '?';
  const res = await call(`${path}${sep}watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(resourceVersion)}`, { signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += value;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) yield JSON.parse(line) as WatchEvent<T>;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The REST path of a resource collection or object; group '' is the core group. */
export function resourcePath(r: { group: string; version: string; resource: string }, namespace?: string, name?: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${r.resource}${name ? `/${encodeURIComponent(name)}` : ''}`;
}
