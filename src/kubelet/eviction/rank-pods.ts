import type { Pod } from 'kubernetes-types/core/v1.js';
import { Quantity } from '../../machinery/quantity.js';
import type { PodStats } from '../stats/summary.js';
import { podPriority, podRequest } from './pod-resources.js';
import { SIGNALS, type ReclaimResource, type Signal, type SignalObservations } from './signals.js';
import { formatThresholdQuantity, type Threshold } from './threshold-config.js';

/** A pod's stats by uid; a pod without any is ranked first, as upstream's. */
export type StatsFunc = (pod: Pod) => PodStats | undefined;

type Cmp = (a: Pod, b: Pod) => number;

/** true before false */
const cmpBool = (a: boolean, b: boolean): number => (a === b ? 0 : a ? -1 : 1);

function orderedBy(...cmps: Cmp[]): (pods: Pod[]) => Pod[] {
  return (pods) => [...pods].sort((a, b) => {
    for (const c of cmps) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  });
}

/** Lower priority first. */
const byPriority: Cmp = (a, b) => podPriority(a) - podPriority(b);

/** Pods without stats first; otherwise `inner` on both pods' stats. */
function withStats(stats: StatsFunc, inner: (a: PodStats, b: PodStats, pa: Pod, pb: Pod) => number): Cmp {
  return (a, b) => {
    const sa = stats(a);
    const sb = stats(b);
    if (!sa || !sb) return cmpBool(!sa, !sb);
    return inner(sa, sb, a, b);
  };
}

const memoryUsage = (s: PodStats): number => s.memory?.workingSetBytes ?? 0;

export function diskUsage(s: PodStats, resource: 'ephemeral-storage' | 'inodes'): number {
  const e = s['ephemeral-storage'];
  return (resource === 'inodes' ? e?.inodesUsed : e?.usedBytes) ?? 0;
}

/** Under memory pressure: pods over their memory request, then lower priority, then most memory above the request. */
export function rankMemoryPressure(pods: Pod[], stats: StatsFunc): Pod[] {
  return orderedBy(
    withStats(stats, (a, b, pa, pb) => cmpBool(memoryUsage(a) > podRequest(pa, 'memory'), memoryUsage(b) > podRequest(pb, 'memory'))),
    byPriority,
    withStats(stats, (a, b, pa, pb) => (memoryUsage(b) - podRequest(pb, 'memory')) - (memoryUsage(a) - podRequest(pa, 'memory'))),
  )(pods);
}

/** Under disk pressure: pods over their ephemeral-storage request, then lower priority, then most usage above the request. */
export function rankDiskPressure(pods: Pod[], stats: StatsFunc, resource: 'ephemeral-storage' | 'inodes'): Pod[] {
  // the request is always ephemeral-storage's, also when ranking by inodes (as upstream)
  return orderedBy(
    withStats(stats, (a, b, pa, pb) => cmpBool(diskUsage(a, resource) > podRequest(pa, resource), diskUsage(b, resource) > podRequest(pb, resource))),
    byPriority,
    withStats(stats, (a, b, pa, pb) => (diskUsage(b, resource) - podRequest(pb, 'ephemeral-storage')) - (diskUsage(a, resource) - podRequest(pa, 'ephemeral-storage'))),
  )(pods);
}

/** Under PID pressure: lower priority, then most processes. */
export function rankPIDPressure(pods: Pod[], stats: StatsFunc): Pod[] {
  return orderedBy(byPriority, withStats(stats, (a, b) => (b.process_stats?.process_count ?? 0) - (a.process_stats?.process_count ?? 0)))(pods);
}

/** The pods of `pods` in the order a signal's eviction takes them. */
export function rankFor(signal: Signal, pods: Pod[], stats: StatsFunc): Pod[] {
  const resource = SIGNALS[signal].resource;
  if (resource === 'memory') return rankMemoryPressure(pods, stats);
  if (resource === 'pids') return rankPIDPressure(pods, stats);
  return rankDiskPressure(pods, stats, resource);
}

const bytes = (n: number): string => Quantity.fromValue(n, 'BinarySI').toString();

function formatAvailable(resource: ReclaimResource, n: number): string {
  return resource === 'memory' || resource === 'ephemeral-storage' ? bytes(n) : Quantity.fromValue(n, 'DecimalSI').toString();
}

/**
 * Upstream's eviction message: the starved resource, the threshold and what
 * was available, then each container using more than it requested.
 */
export function evictionMessage(resource: ReclaimResource, pod: Pod, stats: StatsFunc, thresholds: readonly Threshold[], observations: SignalObservations): string {
  let message = `The node was low on resource: ${resource}. `;
  const t = thresholds.find((x) => SIGNALS[x.signal].resource === resource && observations.has(x.signal));
  const observed = t && observations.get(t.signal);
  if (t && observed) message += `Threshold quantity: ${formatThresholdQuantity(t.value, observed.capacity)}, available: ${formatAvailable(resource, observed.available)}. `;
  const s = stats(pod);
  if (!s || (resource !== 'memory' && resource !== 'ephemeral-storage')) return message;
  const specs = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  for (const c of s.containers) {
    const spec = specs.find((x) => x.name === c.name);
    if (!spec) continue;
    const requestText = spec.resources?.requests?.[resource];
    const request = requestText === undefined ? 0 : Quantity.parse(String(requestText)).value();
    let usage: number | undefined;
    if (resource === 'memory') usage = c.memory?.workingSetBytes;
    // the process runtime's containers have no writable layer of their own: their logs are what they hold
    else if (c.logs?.usedBytes !== undefined) usage = c.logs.usedBytes + (c.rootfs?.usedBytes ?? 0);
    if (usage !== undefined && usage > request) {
      message += `Container ${c.name} was using ${bytes(usage)}, request is ${requestText === undefined ? '0' : Quantity.parse(String(requestText)).toString()}, has larger consumption of ${resource}. `;
    }
  }
  return message;
}
