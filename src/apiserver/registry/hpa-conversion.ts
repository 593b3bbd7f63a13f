import type { KubeObject } from '../../api/object.js';
import type {
  HorizontalPodAutoscaler as HpaV2,
  HorizontalPodAutoscalerCondition,
  MetricSpec,
  MetricStatus,
} from 'kubernetes-types/autoscaling/v2.js';
import type { HorizontalPodAutoscaler as HpaV1 } from 'kubernetes-types/autoscaling/v1.js';

/** Where autoscaling/v1 keeps what only v2 can say, as upstream's conversion does. */
export const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';

const isCpuUtilization = (m: MetricSpec) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.target?.type === 'Utilization';

function parseJson<T>(text: string | undefined): T | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** autoscaling/v2 → v1: the CPU utilisation target becomes targetCPUUtilizationPercentage; every other metric, the behavior, current metrics and conditions travel in annotations. */
export function hpaToV1(hpa: HpaV2): HpaV1 {
  const annotations: Record<string, string> = { ...hpa.metadata?.annotations };
  const metrics = hpa.spec?.metrics ?? [];
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  if (others.length > 0) annotations[METRICS_ANNOTATION] = JSON.stringify(others);
  if (hpa.spec?.behavior) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(hpa.spec.behavior);
  const current = hpa.status?.currentMetrics ?? [];
  const cpuNow = current.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.current?.averageUtilization !== undefined);
  const otherNow = current.filter((m) => m !== cpuNow);
  if (otherNow.length > 0) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(otherNow);
  if (hpa.status?.conditions?.length) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(hpa.status.conditions);
  const out: HpaV1 = {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { ...hpa.metadata, ...(Object.keys(annotations).length ? { annotations } : {}) },
    spec: {
      scaleTargetRef: hpa.spec!.scaleTargetRef,
      ...(hpa.spec?.minReplicas !== undefined ? { minReplicas: hpa.spec.minReplicas } : {}),
      maxReplicas: hpa.spec?.maxReplicas ?? 0,
      ...(cpu ? { targetCPUUtilizationPercentage: cpu.resource!.target.averageUtilization } : {}),
    },
  };
  if (hpa.status) {
    out.status = {
      ...(hpa.status.observedGeneration !== undefined ? { observedGeneration: hpa.status.observedGeneration } : {}),
      ...(hpa.status.lastScaleTime ? { lastScaleTime: hpa.status.lastScaleTime } : {}),
      currentReplicas: hpa.status.currentReplicas ?? 0,
      desiredReplicas: hpa.status.desiredReplicas,
      ...(cpuNow ? { currentCPUUtilizationPercentage: cpuNow.resource!.current.averageUtilization } : {}),
    };
  }
  return out;
}

/** autoscaling/v1 → v2: the inverse of hpaToV1 (the annotations are consumed). */
export function hpaToV2(hpa: HpaV1): HpaV2 {
  const annotations: Record<string, string> = { ...hpa.metadata?.annotations };
  const others = parseJson<MetricSpec[]>(annotations[METRICS_ANNOTATION]) ?? [];
  const behavior = parseJson<NonNullable<HpaV2['spec']>['behavior']>(annotations[BEHAVIOR_ANNOTATION]);
  const otherNow = parseJson<MetricStatus[]>(annotations[CURRENT_METRICS_ANNOTATION]) ?? [];
  const conditions = parseJson<HorizontalPodAutoscalerCondition[]>(annotations[CONDITIONS_ANNOTATION]);
  for (const a of [METRICS_ANNOTATION, BEHAVIOR_ANNOTATION, CURRENT_METRICS_ANNOTATION, CONDITIONS_ANNOTATION]) delete annotations[a];
  const target = hpa.spec?.targetCPUUtilizationPercentage;
  const metrics: MetricSpec[] = [
    ...(target !== undefined && target !== null ? [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } }] : []),
    ...others,
  ];
  const { annotations: _dropped, ...meta } = hpa.metadata ?? {};
  const out: HpaV2 = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { ...meta, ...(Object.keys(annotations).length ? { annotations } : {}) },
    spec: {
      scaleTargetRef: hpa.spec!.scaleTargetRef,
      ...(hpa.spec?.minReplicas !== undefined ? { minReplicas: hpa.spec.minReplicas } : {}),
      maxReplicas: hpa.spec?.maxReplicas ?? 0,
      ...(metrics.length ? { metrics } : {}),
      ...(behavior ? { behavior } : {}),
    },
  };
  if (hpa.status) {
    const cpuNow = hpa.status.currentCPUUtilizationPercentage;
    const currentMetrics: MetricStatus[] = [
      ...(cpuNow !== undefined && cpuNow !== null ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: cpuNow } } }] : []),
      ...otherNow,
    ];
    out.status = {
      ...(hpa.status.observedGeneration !== undefined ? { observedGeneration: hpa.status.observedGeneration } : {}),
      ...(hpa.status.lastScaleTime ? { lastScaleTime: hpa.status.lastScaleTime } : {}),
      currentReplicas: hpa.status.currentReplicas,
      desiredReplicas: hpa.status.desiredReplicas,
      ...(currentMetrics.length ? { currentMetrics } : {}),
      ...(conditions ? { conditions } : {}),
    };
  }
  return out;
}

/** The converter the v1 resource's storage uses (objects are stored as autoscaling/v2). */
export async function convertHpa(objects: readonly KubeObject[], toVersion: string): Promise<KubeObject[]> {
  return objects.map((o) => {
    const from = o.apiVersion?.split('/')[1];
    if (from === toVersion) return o;
    return (toVersion === 'v1' ? hpaToV1(o as HpaV2) : hpaToV2(o as HpaV1)) as unknown as KubeObject;
  });
}
