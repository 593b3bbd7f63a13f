import type { Pod } from 'kubernetes-types/core/v1.js';
import { Quantity } from '../../machinery/quantity.js';

/** One pod's usage of a resource, in milli-units (millicores, millibytes), as metrics.k8s.io reported it. */
export interface PodMetric {
  value: number;
  /** When the sample was taken (ms since the epoch). */
  timestamp: number;
  /** Over how long it was averaged (ms). */
  windowMs: number;
}

/** Usage by pod name. */
export type PodMetrics = Map<string, PodMetric>;

/** Upstream's replica calculator tunables (kube-controller-manager flags). */
export interface ReplicaCalculatorOptions {
  /** `--horizontal-pod-autoscaler-tolerance`: ratios within 1 ± this leave the replicas alone. */
  tolerance: number;
  /** `--horizontal-pod-autoscaler-cpu-initialization-period`: a pod this young may still be warming up. */
  cpuInitializationPeriodMs: number;
  /** `--horizontal-pod-autoscaler-initial-readiness-delay`: readiness flapping this soon after start is not trusted. */
  initialReadinessDelayMs: number;
}

export const DEFAULT_REPLICA_CALCULATOR_OPTIONS: ReplicaCalculatorOptions = {
  tolerance: 0.1,
  cpuInitializationPeriodMs: 5 * 60_000,
  initialReadinessDelayMs: 30_000,
};

/** A replica count could not be computed (the message is upstream's, it lands in events and conditions). */
export class ReplicaCalculationError extends Error {
  override readonly name = 'ReplicaCalculationError';
}

export interface ResourceReplicasInput {
  currentReplicas: number;
  /** The pods the target's scale selector matches. */
  pods: readonly Pod[];
  metrics: PodMetrics;
  resource: string;
  /** Only this container's requests count (ContainerResource metrics); '' for the whole pod. */
  container: string;
  now: number;
}

export interface UtilizationProposal {
  replicas: number;
  /** Average usage as a percentage of the requests. */
  utilization: number;
  /** Average usage per pod in milli-units. */
  rawAverage: number;
}

export interface AverageValueProposal {
  replicas: number;
  /** Average usage per pod in milli-units. */
  average: number;
}

interface PodGroups {
  readyPodCount: number;
  unready: Set<string>;
  missing: Set<string>;
  ignored: Set<string>;
}

function podReady(pod: Pod) {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/**
 * Upstream's groupPods: deleted and failed pods are ignored, pending ones are
 * unready, pods without a sample are missing; for cpu a pod still in its
 * initialization period counts as unready when not Ready or when its sample
 * predates its readiness, and after it when it turned unready too soon after
 * start to be trusted.
 */
function groupPods(pods: readonly Pod[], metrics: PodMetrics, resource: string, o: ReplicaCalculatorOptions, now: number): PodGroups {
  const g: PodGroups = { readyPodCount: 0, unready: new Set(), missing: new Set(), ignored: new Set() };
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (pod.metadata?.deletionTimestamp || pod.status?.phase === 'Failed') {
      g.ignored.add(name);
      continue;
    }
    if (pod.status?.phase === 'Pending') {
      g.unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      g.missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const ready = podReady(pod);
      const startTime = pod.status?.startTime ? Date.parse(pod.status.startTime) : undefined;
      let unready: boolean;
      if (!ready || startTime === undefined) {
        unready = true;
      } else {
        const transition = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : 0;
        if (startTime + o.cpuInitializationPeriodMs > now) {
          unready = ready.status === 'False' || metric.timestamp < transition + metric.windowMs;
        } else {
          unready = ready.status === 'False' && startTime + o.initialReadinessDelayMs > transition;
        }
      }
      if (unready) {
        g.unready.add(name);
        continue;
      }
    }
    g.readyPodCount++;
  }
  return g;
}

/** Each pod's request of `resource` (milli-units), summed over its containers (or the one named). */
export function podRequests(pods: readonly Pod[], container: string, resource: string): Map<string, number> {
  const requests = new Map<string, number>();
  for (const pod of pods) {
    let sum = 0;
    for (const c of pod.spec?.containers ?? []) {
      if (container && c.name !== container) continue;
      const request = c.resources?.requests?.[resource];
      if (request === undefined) throw new ReplicaCalculationError(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata?.name ?? ''}`);
      sum += Quantity.parse(String(request)).milliValue();
    }
    requests.set(pod.metadata?.name ?? '', sum);
  }
  return requests;
}

/** Usage over requests of the pods that have both: the ratio to the target, the percentage and the average usage. */
export function utilizationRatio(metrics: PodMetrics, requests: Map<string, number>, targetUtilization: number): { ratio: number; utilization: number; rawAverage: number } {
  let usage = 0;
  let requested = 0;
  let n = 0;
  for (const [name, m] of metrics) {
    const r = requests.get(name);
    if (r === undefined) continue;
    usage += m.value;
    requested += r;
    n++;
  }
  if (requested === 0) throw new ReplicaCalculationError('no metrics returned matched known pods');
  const utilization = Math.trunc((usage * 100) / requested);
  return { ratio: utilization / targetUtilization, utilization, rawAverage: Math.trunc(usage / n) };
}

function averageRatio(metrics: PodMetrics, target: number): { ratio: number; average: number } {
  let usage = 0;
  for (const m of metrics.values()) usage += m.value;
  const average = Math.trunc(usage / metrics.size);
  return { ratio: average / target, average };
}

function withoutPods(metrics: PodMetrics, ...names: Set<string>[]): PodMetrics {
  const kept = new Map(metrics);
  for (const set of names) for (const n of set) kept.delete(n);
  return kept;
}

/**
 * The shared second pass of upstream's calculator: with unready pods on a
 * scale up or pods lacking samples, those pods are filled in conservatively
 * (missing: 0 on scale up, `fallback` on scale down; unready: 0) and the
 * ratio recomputed; a change of direction, or a change within tolerance,
 * keeps the current count.
 */
function adjustedReplicas(
  i: { currentReplicas: number; metrics: PodMetrics; groups: PodGroups; ratio: number; tolerance: number },
  fallback: (name: string) => number,
  ratioOf: (metrics: PodMetrics) => number,
): number {
  const { groups, ratio, tolerance, currentReplicas } = i;
  const scaleUpWithUnready = groups.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && groups.missing.size === 0) {
    if (Math.abs(1 - ratio) <= tolerance) return currentReplicas;
    return Math.ceil(ratio * groups.readyPodCount);
  }
  const metrics = new Map(i.metrics);
  if (groups.missing.size > 0) {
    for (const name of groups.missing) metrics.set(name, { value: ratio < 1 ? fallback(name) : 0, timestamp: 0, windowMs: 0 });
  }
  if (scaleUpWithUnready) for (const name of groups.unready) metrics.set(name, { value: 0, timestamp: 0, windowMs: 0 });
  const newRatio = ratioOf(metrics);
  if (Math.abs(1 - newRatio) <= tolerance || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1)) return currentReplicas;
  const replicas = Math.ceil(newRatio * metrics.size);
  if ((newRatio < 1 && replicas > currentReplicas) || (newRatio > 1 && replicas < currentReplicas)) return currentReplicas;
  return replicas;
}

function readyMetrics(i: ResourceReplicasInput, o: ReplicaCalculatorOptions): { groups: PodGroups; metrics: PodMetrics } {
  if (i.pods.length === 0) throw new ReplicaCalculationError('no pods returned by selector while calculating replica count');
  const groups = groupPods(i.pods, i.metrics, i.resource, o, i.now);
  const metrics = withoutPods(i.metrics, groups.ignored, groups.unready);
  if (metrics.size === 0) throw new ReplicaCalculationError('did not receive metrics for targeted pods (pods might be unready)');
  return { groups, metrics };
}

/** Upstream's GetResourceReplicas: the replicas that bring average utilization (usage / request) to the target percentage. */
export function resourceReplicas(i: ResourceReplicasInput, targetUtilization: number, o: ReplicaCalculatorOptions = DEFAULT_REPLICA_CALCULATOR_OPTIONS): UtilizationProposal {
  const { groups, metrics } = readyMetrics(i, o);
  const requests = podRequests(i.pods, i.container, i.resource);
  const { ratio, utilization, rawAverage } = utilizationRatio(metrics, requests, targetUtilization);
  // on a scale down a missing pod is taken to use its whole request, or the target when that is above 100%
  const fallbackPercent = Math.max(100, targetUtilization);
  const replicas = adjustedReplicas(
    { currentReplicas: i.currentReplicas, metrics, groups, ratio, tolerance: o.tolerance },
    (name) => Math.trunc(((requests.get(name) ?? 0) * fallbackPercent) / 100),
    (m) => utilizationRatio(m, requests, targetUtilization).ratio,
  );
  return { replicas, utilization, rawAverage };
}

/** Upstream's GetRawResourceReplicas: the replicas that bring average usage per pod to `targetMilli`. */
export function rawResourceReplicas(i: ResourceReplicasInput, targetMilli: number, o: ReplicaCalculatorOptions = DEFAULT_REPLICA_CALCULATOR_OPTIONS): AverageValueProposal {
  const { groups, metrics } = readyMetrics(i, o);
  const { ratio, average } = averageRatio(metrics, targetMilli);
  const replicas = adjustedReplicas(
    { currentReplicas: i.currentReplicas, metrics, groups, ratio, tolerance: o.tolerance },
    () => targetMilli,
    (m) => averageRatio(m, targetMilli).ratio,
  );
  return { replicas, average };
}
