import { setMaxListeners } from 'node:events';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { listWatcherFor } from '../../client/cache/list-watcher.js';
import { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import type { ApiObject } from '../../client/rest/api-object.js';
import type { Client } from '../../client/rest/client.js';
import type { GroupVersionResource } from '../../client/rest/resource-path.js';
import type { Logger } from '../../machinery/logger.js';

interface Watched<T extends ApiObject> {
  informer: SharedIndexInformer<T>;
  stop: AbortController;
  running: Promise<void>;
  pods: number;
}

export interface WatchBasedObjectsOptions {
  client: Client;
  resource: GroupVersionResource;
  /** The names of this resource a pod refers to (all in the pod's namespace). */
  namesOf: (pod: Pod) => Iterable<string>;
  /** A watched object was added, changed or deleted. */
  onChange: (namespace: string, name: string) => void;
  logger: Logger;
}

/**
 * Upstream's watch-based secret and config map managers: the kubelet reads
 * only the objects its pods refer to, each through its own list-watch
 * narrowed by `metadata.name` (which the Node authorizer allows for related
 * objects), started when the first pod that needs it is registered and
 * stopped when the last one goes.
 */
export class WatchBasedObjects<T extends ApiObject> {
  private readonly watched = new Map<string, Watched<T>>();
  /** Pod uid → the object keys it registered. */
  private readonly pods = new Map<string, string[]>();
  private readonly stopping = new AbortController();
  /** Watches released but not yet finished. */
  private readonly retiring = new Set<Promise<void>>();

  constructor(private readonly opts: WatchBasedObjectsOptions) {
    setMaxListeners(0, this.stopping.signal);
  }

  /** Starts watching what the pod refers to (idempotent per pod uid; a changed pod swaps its references). */
  registerPod(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    const ns = pod.metadata?.namespace ?? 'default';
    const next = [...new Set(this.opts.namesOf(pod))].map((name) => `${ns}/${name}`);
    const prev = this.pods.get(uid) ?? [];
    if (this.pods.has(uid) && prev.length === next.length && prev.every((k, i) => k === next[i])) return;
    this.pods.set(uid, next);
    for (const key of next) this.acquire(key);
    for (const key of prev) this.release(key);
  }

  /** The pod is gone: stop the watches no other pod needs. */
  unregisterPod(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    const keys = this.pods.get(uid);
    if (!keys) return;
    this.pods.delete(uid);
    for (const key of keys) this.release(key);
  }

  /** The object as last seen; undefined if it does not exist (or is not watched). */
  get(namespace: string, name: string): T | undefined {
    return this.watched.get(`${namespace}/${name}`)?.informer.lister.namespace(namespace).get(name);
  }

  /**
   * Resolves once every object the pod refers to has been listed at least
   * once, or after `timeoutMs` (then missing objects read as not found and
   * the pod worker retries), as upstream's Get waits for its reflector.
   */
  async whenSynced(pod: Pod, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const ns = pod.metadata?.namespace ?? 'default';
    const informers = [...new Set(this.opts.namesOf(pod))].map((n) => this.watched.get(`${ns}/${n}`)?.informer).filter((i) => i !== undefined);
    const pending = informers.filter((i) => !i.hasSynced());
    if (pending.length === 0) return true;
    const timeout = AbortSignal.timeout(timeoutMs);
    const both = signal ? AbortSignal.any([timeout, signal]) : timeout;
    const results = await Promise.all(pending.map((i) => i.whenSynced(both)));
    return results.every(Boolean);
  }

  /** Stops every watch and waits for them. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all([...[...this.watched.values()].map((w) => w.running), ...this.retiring]);
    this.watched.clear();
  }

  private acquire(key: string): void {
    const known = this.watched.get(key);
    if (known) {
      known.pods++;
      return;
    }
    if (this.stopping.signal.aborted) return;
    const [namespace, name] = splitKey(key);
    const rc = this.opts.client.resource<T>(this.opts.resource).namespace(namespace);
    const informer = new SharedIndexInformer<T>({
      listerWatcher: listWatcherFor(rc, { fieldSelector: `metadata.name=${name}` }),
      reflector: { onError: (err) => this.opts.logger.debug('object watch failed', { resource: this.opts.resource.resource, object: key, error: err instanceof Error ? err.message : String(err) }) },
    });
    const changed = () => this.opts.onChange(namespace, name);
    informer.addEventHandler({ onAdd: changed, onUpdate: changed, onDelete: changed });
    const stop = new AbortController();
    const running = informer.run(AbortSignal.any([stop.signal, this.stopping.signal]));
    this.watched.set(key, { informer, stop, running, pods: 1 });
  }

  private release(key: string): void {
    const w = this.watched.get(key);
    if (!w) return;
    if (--w.pods > 0) return;
    this.watched.delete(key);
    w.stop.abort();
    const done: Promise<void> = w.running.finally(() => this.retiring.delete(done));
    this.retiring.add(done);
  }
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}
