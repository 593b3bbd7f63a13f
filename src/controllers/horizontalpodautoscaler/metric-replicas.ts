import type { MetricSpec, MetricStatus, MetricTarget } from 'kubernetes-types/autoscaling/v2.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Selector } from '../../machinery/labels/index.js';
import { Quantity } from '../../machinery/quantity.js';
import { resourceMetrics, type PodMetricsSource } from './pod-metrics.js';
import { rawResourceReplicas, ReplicaCalculationError, resourceReplicas, type ReplicaCalculatorOptions } from './replica-calculator.js';

/** What one metric of `spec.metrics` proposes. */
export interface MetricProposal {
  replicas: number;
  /** How the rescale event names it: `cpu resource utilization (percentage of request)`. */
  name: string;
  status: MetricStatus;
}

/** A metric that gave no proposal: the ScalingActive=False reason and the error, as upstream words them. */
export class MetricError extends Error {
  override readonly name = 'MetricError';
  constructor(
    /** `FailedGetResourceMetric`, `FailedGetPodsMetric`, … (event reason and condition reason). */
    readonly reason: string,
    /** The inner error (event message; the condition says "the HPA was unable to compute the replica count: <detail>"). */
    readonly detail: string,
    /** The outer error, as in FailedComputeMetricsReplicas. */
    message: string,
  ) {
    super(message);
  }
}

export interface MetricContext {
  podMetrics: PodMetricsSource;
  namespace: string;
  /** The scale's selector, as the API takes it and parsed. */
  selector: string;
  parsed: Selector;
  /** The target's scale.spec.replicas. */
  specReplicas: number;
  pods: () => readonly Pod[];
  now: number;
  options: ReplicaCalculatorOptions;
  signal: AbortSignal;
}

const NO_CUSTOM_METRICS = 'unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered';
const NO_EXTERNAL_METRICS = 'unable to fetch metrics from external metrics API: no external metrics API (external.metrics.k8s.io) registered';

/** Upstream's computeReplicasForMetric for one metric: Resource and ContainerResource from metrics.k8s.io; the custom and external metrics APIs are not served. */
export async function metricReplicas(spec: MetricSpec, ctx: MetricContext): Promise<MetricProposal> {
  switch (spec.type) {
    case 'Resource': {
      const r = spec.resource;
      if (!r) throw new MetricError('FailedGetResourceMetric', 'invalid resource metric source: no resource set', 'invalid resource metric source: no resource set');
      const p = await resourceProposal(r.name, '', r.target, ctx, 'FailedGetResourceMetric', `failed to get ${r.name} resource metric value`);
      return { replicas: p.replicas, name: p.name, status: { type: 'Resource', resource: { name: r.name, current: p.current } } };
    }
    case 'ContainerResource': {
      const r = spec.containerResource;
      if (!r) throw new MetricError('FailedGetContainerResourceMetric', 'invalid container resource metric source: no resource set', 'invalid container resource metric source: no resource set');
      const p = await resourceProposal(r.name, r.container, r.target, ctx, 'FailedGetContainerResourceMetric', `failed to get ${r.name} container metric value`);
      return { replicas: p.replicas, name: p.name, status: { type: 'ContainerResource', containerResource: { name: r.name, container: r.container, current: p.current } } };
    }
    case 'Pods': {
      const detail = `unable to get metric ${spec.pods?.metric.name ?? ''}: ${NO_CUSTOM_METRICS}`;
      throw new MetricError('FailedGetPodsMetric', detail, `failed to get pods metric value: ${detail}`);
    }
    case 'Object': {
      const detail = `unable to get metric ${spec.object?.metric.name ?? ''}: ${NO_CUSTOM_METRICS}`;
      throw new MetricError('FailedGetObjectMetric', detail, `failed to get object metric value: ${detail}`);
    }
    case 'External': {
      const name = spec.external?.metric.name ?? '';
      const detail = `unable to get external metric ${ctx.namespace}/${name}: ${NO_EXTERNAL_METRICS}`;
      throw new MetricError('FailedGetExternalMetric', detail, `failed to get external metric ${name}: ${detail}`);
    }
    default: {
      const detail = `unknown metric source type "${String(spec.type)}"`;
      throw new MetricError('InvalidMetricSourceType', detail, detail);
    }
  }
}

async function resourceProposal(resource: string, container: string, target: MetricTarget | undefined, ctx: MetricContext, reason: string, outer: string) {
  const fail = (detail: string): never => {
    throw new MetricError(reason, detail, `${outer}: ${detail}`);
  };
  const kind = container ? `${resource} container resource` : `${resource} resource`;
  const input = async () => ({
    currentReplicas: ctx.specReplicas,
    metrics: await resourceMetrics(ctx.podMetrics, ctx.namespace, ctx.selector, resource, container, ctx.signal),
    pods: ctx.pods().filter((p) => ctx.parsed.matches(p.metadata?.labels ?? {})),
    resource,
    container,
    now: ctx.now,
  });
  if (target?.averageValue !== undefined) {
    try {
      const p = rawResourceReplicas(await input(), Quantity.parse(String(target.averageValue)).milliValue(), ctx.options);
      return { replicas: p.replicas, name: kind, current: { averageValue: Quantity.fromMilliValue(p.average).toString() } };
    } catch (err) {
      if (err instanceof ReplicaCalculationError) fail(`failed to get ${resource} usage: ${err.message}`);
      throw err;
    }
  }
  if (target?.averageUtilization === undefined) return fail('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
  try {
    const p = resourceReplicas(await input(), target.averageUtilization, ctx.options);
    return {
      replicas: p.replicas,
      name: `${kind} utilization (percentage of request)`,
      current: { averageUtilization: p.utilization, averageValue: Quantity.fromMilliValue(p.rawAverage).toString() },
    };
  } catch (err) {
    if (err instanceof ReplicaCalculationError) fail(`failed to get ${resource} utilization: ${err.message}`);
    throw err;
  }
}
