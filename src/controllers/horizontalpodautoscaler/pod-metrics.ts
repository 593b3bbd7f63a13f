import type { Client } from '../../client/rest/client.js';
import { parseDuration } from '../../machinery/duration.js';
import { Quantity } from '../../machinery/quantity.js';
import { ReplicaCalculationError, type PodMetrics } from './replica-calculator.js';

/** metrics.k8s.io/v1beta1 PodMetrics, as served by the API server (built in, or metrics-server behind an APIService). */
export interface PodMetricsObject {
  metadata?: { name?: string };
  timestamp?: string;
  window?: string;
  containers?: { name: string; usage?: Record<string, string> }[];
}

const POD_METRICS = { group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods' };

/** Lists the PodMetrics a label selector matches in a namespace. */
export type PodMetricsSource = (namespace: string, selector: string, signal: AbortSignal) => Promise<PodMetricsObject[]>;

/** PodMetrics from metrics.k8s.io through the API server (the controller never calls kubelets). */
export function apiPodMetrics(client: Client): PodMetricsSource {
  return async (namespace, selector, signal) =>
    (await client.resource<PodMetricsObject>(POD_METRICS, { namespaced: true }).namespace(namespace).list({ labelSelector: selector, signal })).items;
}

/**
 * Upstream's resource metrics client: lists PodMetrics by the target's
 * selector through the API and sums each pod's containers' usage of
 * `resource` (milli-units). A pod lacking the resource in any container is
 * left out (it counts as missing); with `container` only that container
 * counts, and a pod without it is an error.
 */
export async function resourceMetrics(list: PodMetricsSource, namespace: string, selector: string, resource: string, container: string, signal: AbortSignal): Promise<PodMetrics> {
  let items: PodMetricsObject[];
  try {
    items = await list(namespace, selector, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ReplicaCalculationError(`unable to get metrics for resource ${resource}: unable to fetch metrics from resource metrics API: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (items.length === 0) throw new ReplicaCalculationError(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
  const metrics: PodMetrics = new Map();
  for (const m of items) {
    const name = m.metadata?.name ?? '';
    const timestamp = m.timestamp ? Date.parse(m.timestamp) : 0;
    const windowMs = m.window ? safeDuration(m.window) : 0;
    const containers = container ? (m.containers ?? []).filter((c) => c.name === container) : (m.containers ?? []);
    if (container && containers.length === 0) {
      throw new ReplicaCalculationError(`unable to get metrics for resource ${resource}: failed to get container metrics: container ${container} not present in metrics for pod ${namespace}/${name}`);
    }
    let value = 0;
    let missing = containers.length === 0;
    for (const c of containers) {
      const usage = c.usage?.[resource];
      if (usage === undefined) {
        missing = true;
        break;
      }
      value += Quantity.parse(usage).milliValue();
    }
    if (!missing) metrics.set(name, { value, timestamp, windowMs });
  }
  return metrics;
}

function safeDuration(s: string): number {
  try {
    return parseDuration(s);
  } catch {
    return 0;
  }
}
