import type { ApiObject, ObjectList } from './api-object.js';
import type { Status } from '../../machinery/api-error.js';
import type { RestClient, QueryValue } from './rest-client.js';
import { resourcePath, type GroupVersionResource } from './resource-path.js';
import { watchStream } from './watch-stream.js';
import { tracingEnabled } from '../../trace/tracing.js';

/** Asks skiff's API server to name each watch event's causing span (other clients never see it). */
const WATCH_CAUSES = { 'X-Skiff-Watch-Causes': 'true' };
import type { WatchEvent } from './watch-event.js';

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  signal?: AbortSignal;
  /** skiff only, with tracing on: ask for the causes of the listed objects' writes (what an informer's initial list links to). */
  withCauses?: boolean;
}

export interface WatchOptions {
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  signal?: AbortSignal;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface PatchOptions extends WriteOptions {
  subresource?: string;
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
}

export interface DeleteOptions {
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  signal?: AbortSignal;
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/**
 * Typed verbs on one resource, optionally bound to a namespace. Without a
 * namespace, list/watch/deleteCollection span all namespaces and writes use
 * the object's own metadata.namespace.
 */
export class ResourceClient<T extends ApiObject = ApiObject> {
  constructor(
    private readonly rest: RestClient,
    readonly gvr: GroupVersionResource,
    readonly namespaced: boolean,
    readonly ns?: string,
  ) {}

  namespace(ns: string): ResourceClient<T> {
    return new ResourceClient<T>(this.rest, this.gvr, this.namespaced, ns);
  }

  get(name: string, options: { signal?: AbortSignal } = {}): Promise<T> {
    return this.rest.request<T>({ method: 'GET', path: this.path(this.ns, name), signal: options.signal });
  }

  list(options: ListOptions = {}): Promise<ObjectList<T>> {
    const { signal, continue: cont, withCauses, ...rest } = options;
    return this.rest.request<ObjectList<T>>({
      method: 'GET',
      path: this.path(this.ns),
      query: { ...rest, continue: cont },
      headers: withCauses && tracingEnabled() ? WATCH_CAUSES : undefined,
      signal,
    });
  }

  create(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.rest.request<T>({
      method: 'POST',
      path: this.path(this.namespaceOf(obj)),
      query: writeQuery(options),
      body: obj,
      signal: options.signal,
    });
  }

  update(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.put(obj, undefined, options);
  }

  updateStatus(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.put(obj, 'status', options);
  }

  patch(name: string, patch: unknown, type: PatchType, options: PatchOptions = {}): Promise<T> {
    return this.rest.request<T>({
      method: 'PATCH',
      path: this.path(this.ns, name, options.subresource),
      query: { ...writeQuery(options), force: type === 'apply' && options.force ? true : undefined },
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
      signal: options.signal,
    });
  }

  /** Returns the object (graceful deletion, finalizers pending) or a Success Status. */
  delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    return this.rest.request<T | Status>({
      method: 'DELETE',
      path: this.path(this.ns, name),
      body: deleteBody(options),
      signal: options.signal,
    });
  }

  deleteCollection(options: DeleteOptions & Omit<ListOptions, 'signal'> = {}): Promise<Status | ObjectList<T>> {
    const { labelSelector, fieldSelector, limit, continue: cont, resourceVersion, resourceVersionMatch } = options;
    return this.rest.request<Status | ObjectList<T>>({
      method: 'DELETE',
      path: this.path(this.ns),
      query: { labelSelector, fieldSelector, limit, continue: cont, resourceVersion, resourceVersionMatch },
      body: deleteBody(options),
      signal: options.signal,
    });
  }

  /**
   * Streams changes. The request starts lazily on iteration and ends when the
   * server closes the stream (timeoutSeconds), the signal aborts, or the
   * consumer stops iterating.
   */
  watch(options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    const { signal, ...rest } = options;
    const start = (): ReturnType<RestClient['stream']> =>
      this.rest.stream({ method: 'GET', path: this.path(this.ns), query: { ...rest, watch: true }, headers: tracingEnabled() ? WATCH_CAUSES : undefined, signal });
    return {
      async *[Symbol.asyncIterator]() {
        let res: Awaited<ReturnType<typeof start>>;
        try {
          res = await start();
        } catch (err) {
          // aborted while connecting: the watch ends quietly, as it does once streaming
          if (signal?.aborted) return;
          throw err;
        }
        yield* watchStream<T>(res, signal);
      },
    };
  }

  getSubresource<S = unknown>(name: string, subresource: string, options: { signal?: AbortSignal } = {}): Promise<S> {
    return this.rest.request<S>({ method: 'GET', path: this.path(this.ns, name, subresource), signal: options.signal });
  }

  createSubresource<S = unknown>(name: string, subresource: string, body: unknown, options: WriteOptions = {}): Promise<S> {
    return this.rest.request<S>({
      method: 'POST',
      path: this.path(this.ns, name, subresource),
      query: writeQuery(options),
      body,
      signal: options.signal,
    });
  }

  updateSubresource<S = unknown>(name: string, subresource: string, body: unknown, options: WriteOptions = {}): Promise<S> {
    return this.rest.request<S>({
      method: 'PUT',
      path: this.path(this.ns, name, subresource),
      query: writeQuery(options),
      body,
      signal: options.signal,
    });
  }

  private put(obj: T, subresource: string | undefined, options: WriteOptions): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new RangeError('update needs metadata.name');
    return this.rest.request<T>({
      method: 'PUT',
      path: this.path(this.namespaceOf(obj), name, subresource),
      query: writeQuery(options),
      body: obj,
      signal: options.signal,
    });
  }

  private namespaceOf(obj: T): string | undefined {
    return this.ns ?? obj.metadata?.namespace;
  }

  private path(namespace: string | undefined, name?: string, subresource?: string): string {
    return resourcePath({ ...this.gvr, namespace: this.namespaced ? namespace : undefined, name, subresource });
  }
}

function writeQuery(o: WriteOptions): Record<string, QueryValue> {
  return { dryRun: o.dryRun ? 'All' : undefined, fieldManager: o.fieldManager };
}

function deleteBody(o: DeleteOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
  if (o.propagationPolicy) body.propagationPolicy = o.propagationPolicy;
  if (o.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = o.gracePeriodSeconds;
  if (o.preconditions) body.preconditions = o.preconditions;
  if (o.dryRun) body.dryRun = ['All'];
  return body;
}
