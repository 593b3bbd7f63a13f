import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import type { ConfigMap, Node, Pod } from 'kubernetes-types/core/v1.js';
import { CONFIG_MAPS, NODES, PODS } from '../src/api/resource-refs.js';
import { Reflector } from '../src/client/cache/reflector.js';
import { listWatcherFor } from '../src/client/cache/list-watcher.js';
import type { Client } from '../src/client/rest/client.js';
import { DeliveryLedger } from './stats.js';

/** Latency samples of one SLI, with failures counted (a failed call's latency still counts). */
export class Samples {
  readonly ms: number[] = [];
  errors = 0;
  lastError = '';

  async time<T>(fn: () => Promise<T>): Promise<T | undefined> {
    const t0 = performance.now();
    try {
      return await fn();
    } catch (err) {
      this.errors++;
      this.lastError = err instanceof Error ? err.message : String(err);
      return undefined;
    } finally {
      this.ms.push(performance.now() - t0);
    }
  }
}

export interface Slis {
  mutating: Samples;
  get: Samples;
  namespaceList: Samples;
  clusterList: Samples;
}

export const newSlis = (): Slis => ({ mutating: new Samples(), get: new Samples(), namespaceList: new Samples(), clusterList: new Samples() });

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Repeats `fn` every `everyMs` until the signal aborts (a slow call delays the next, it never piles up). */
async function every(everyMs: number, signal: AbortSignal, fn: () => Promise<unknown>): Promise<void> {
  while (!signal.aborted) {
    const t0 = performance.now();
    await fn();
    await sleep(Math.max(0, everyMs - (performance.now() - t0)), signal);
  }
}

/**
 * Reads as the SLOs define them, while the cluster grows: single-object GETs
 * of objects the bench created, LISTs of one namespace's pods, and
 * cluster-scoped LISTs of all nodes and all pods (consistent reads).
 */
export function runReadProbes(client: Client, slis: Slis, o: { namespaces: string[]; objects: () => { namespace: string; name: string } | undefined; signal: AbortSignal }): Promise<unknown> {
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const cms = client.resource<ConfigMap>(CONFIG_MAPS);
  const pods = client.resource<Pod>(PODS);
  let cluster = 0;
  return Promise.all([
    every(100, o.signal, async () => {
      const obj = o.objects();
      if (obj) await slis.get.time(() => cms.namespace(obj.namespace).get(obj.name));
    }),
    every(500, o.signal, () => slis.namespaceList.time(() => pods.namespace(pick(o.namespaces)).list())),
    every(5_000, o.signal, () => slis.clusterList.time((): Promise<unknown> => (cluster++ % 2 === 0 ? client.resource<Node>(NODES).list() : pods.list()))),
  ]);
}

/**
 * Watch delivery: `watchers` watches of ConfigMaps in the probe namespace,
 * and a ConfigMap created there every 200 ms; each event's latency counts
 * from the create request to its arrival. Late and missing events are
 * counted by the ledger, never dropped.
 */
export async function runWatchProbes(client: Client, slis: Slis, o: { namespace: string; watchers: number; signal: AbortSignal; ledger: DeliveryLedger }): Promise<void> {
  // the writer stops with the signal; the watchers only once every outstanding event has arrived (or its wait ran out)
  const watching = new AbortController();
  setMaxListeners(o.watchers + 10, watching.signal);
  const cms = client.resource<ConfigMap>(CONFIG_MAPS).namespace(o.namespace);
  const rv = (await cms.list({ limit: 1 })).metadata?.resourceVersion;
  const watchers = Array.from({ length: o.watchers }, async () => {
    try {
      for await (const ev of cms.watch({ resourceVersion: rv, signal: watching.signal, timeoutSeconds: 3600 })) {
        if (ev.type === 'ADDED') o.ledger.arrived(ev.object.metadata?.name ?? '');
      }
    } catch (err) {
      if (!watching.signal.aborted) throw err;
    }
  });
  let n = 0;
  const writer = every(200, o.signal, async () => {
    const name = `probe-${n++}`;
    const t0 = performance.now();
    const created = await slis.mutating.time(() => cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: o.namespace } }));
    if (created) o.ledger.wrote(name, t0);
  });
  await writer;
  await o.ledger.settle(10_000);
  watching.abort();
  await Promise.all(watchers);
}

/**
 * Each pod's startup, from its ADDED event to its Running event on one
 * label-selected cluster-wide watch (a relist re-reads without losing track),
 * with the moment it was first seen bound to a node.
 */
export class PodTracker {
  private readonly seen = new Map<string, { added: number; bound?: number; running?: number }>();
  running = 0;
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  private onListed = (): void => undefined;
  /** Resolves once the first list has been applied: pods created after it are timed from their ADDED event. */
  readonly listed = new Promise<void>((resolve) => (this.onListed = resolve));

  constructor(private readonly client: Client, private readonly labelSelector: string) {}

  run(signal: AbortSignal): Promise<void> {
    return new Reflector<Pod>({
      listerWatcher: listWatcherFor(this.client.resource<Pod>(PODS), { labelSelector: this.labelSelector }),
      store: { add: (p) => this.track(p), update: (p) => this.track(p), delete: () => undefined, replace: (items) => {
        items.forEach((p) => this.track(p));
        this.onListed();
      } },
    }).run(signal);
  }

  private track(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    const now = performance.now();
    let s = this.seen.get(uid);
    if (!s) this.seen.set(uid, (s = { added: now }));
    if (s.bound === undefined && pod.spec?.nodeName) s.bound = now;
    if (s.running === undefined && pod.status?.phase === 'Running') {
      s.running = now;
      this.running++;
      for (const w of this.waiters.filter((x) => this.running >= x.count)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  /** Resolves once `count` pods have been seen Running. */
  untilRunning(count: number): Promise<void> {
    if (this.running >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /**
   * Startup latencies (ADDED → Running) of the pods seen Running, ADDED →
   * bound of the pods seen bound, and how many were seen but never Running
   * or never bound.
   */
  startup(): { ms: number[]; scheduleMs: number[]; notRunning: number; unscheduled: number; seen: number } {
    const ms: number[] = [];
    const scheduleMs: number[] = [];
    let notRunning = 0;
    let unscheduled = 0;
    for (const s of this.seen.values()) {
      if (s.running === undefined) notRunning++;
      else ms.push(s.running - s.added);
      if (s.bound === undefined) unscheduled++;
      else scheduleMs.push(s.bound - s.added);
    }
    return { ms, scheduleMs, notRunning, unscheduled, seen: this.seen.size };
  }
}

/** Resident set size of a process in MiB (NaN once it is gone). */
export function rssMiB(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU seconds (user + system) a process has used so far (NaN once it is gone). */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux)
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** The API server's request counts by verb and resource (from its apiserver_request_total), most first. */
export async function requestCounts(client: Client): Promise<{ key: string; count: number; failed: number }[]> {
  const res = await client.rest.stream({ method: 'GET', path: '/metrics' });
  let text = '';
  for await (const chunk of res) text += String(chunk);
  const counts = new Map<string, { count: number; failed: number }>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const verb = /verb="([^"]*)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? '';
    const code = Number(/code="([^"]*)"/.exec(line)?.[1] ?? 0);
    const key = `${verb} ${resource}`;
    const n = Number(line.slice(line.lastIndexOf(' ') + 1));
    const c = counts.get(key) ?? { count: 0, failed: 0 };
    c.count += n;
    if (code >= 400) c.failed += n;
    counts.set(key, c);
  }
  return [...counts].map(([key, c]) => ({ key, ...c })).sort((a, b) => b.count - a.count);
}
