import type { HorizontalPodAutoscaler, HPAScalingRules, MetricSpec, MetricTarget } from 'kubernetes-types/autoscaling/v2.js';
import type { HorizontalPodAutoscaler as HpaV1 } from 'kubernetes-types/autoscaling/v1.js';
import { invalid, notSupported, required, type ErrorList } from './errors.js';
import { nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const TARGET_TYPES = ['AverageValue', 'Utilization', 'Value'];
const POLICY_TYPES = ['Percent', 'Pods'];
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];

function validateTarget(t: MetricTarget | undefined, path: string, allowUtilization: boolean): ErrorList {
  if (!t) return [required(path, 'must specify a metric target')];
  const errs: ErrorList = [];
  if (!t.type) errs.push(required(`${path}.type`, 'must specify a metric target type'));
  else if (!TARGET_TYPES.includes(t.type)) errs.push(notSupported(`${path}.type`, t.type, TARGET_TYPES));
  if (t.averageUtilization !== undefined && t.averageUtilization < 1) errs.push(invalid(`${path}.averageUtilization`, t.averageUtilization, 'must be greater than 0'));
  if (t.type === 'Utilization' && !allowUtilization) errs.push(invalid(`${path}.type`, t.type, 'must be Value or AverageValue'));
  if (t.type === 'Utilization' && t.averageUtilization === undefined) errs.push(required(`${path}.averageUtilization`, 'must set averageUtilization when type is Utilization'));
  if (t.type === 'AverageValue' && t.averageValue === undefined) errs.push(required(`${path}.averageValue`, 'must set averageValue when type is AverageValue'));
  if (t.type === 'Value' && t.value === undefined) errs.push(required(`${path}.value`, 'must set value when type is Value'));
  return errs;
}

function validateMetric(m: MetricSpec, path: string): ErrorList {
  if (!m.type) return [required(`${path}.type`, 'must specify a metric source type')];
  if (!METRIC_TYPES.includes(m.type)) return [notSupported(`${path}.type`, m.type, METRIC_TYPES)];
  const field = m.type === 'ContainerResource' ? 'containerResource' : m.type.toLowerCase();
  const src = (m as unknown as Record<string, unknown>)[field] as { name?: string; target?: MetricTarget; metric?: { name?: string } } | undefined;
  if (!src) return [required(`${path}.${field}`, `must populate information for the given metric source (${m.type})`)];
  const errs: ErrorList = [];
  if ((m.type === 'Resource' || m.type === 'ContainerResource') && !src.name) errs.push(required(`${path}.${field}.name`, 'must specify a resource name'));
  if ((m.type === 'Pods' || m.type === 'Object' || m.type === 'External') && !src.metric?.name) errs.push(required(`${path}.${field}.metric.name`, 'must specify a metric name'));
  errs.push(...validateTarget(src.target, `${path}.${field}.target`, m.type === 'Resource' || m.type === 'ContainerResource'));
  return errs;
}

function validateRules(r: HPAScalingRules | undefined, path: string): ErrorList {
  if (!r) return [];
  const errs: ErrorList = [];
  const w = r.stabilizationWindowSeconds;
  if (w !== undefined && (w < 0 || w > 3600)) errs.push(invalid(`${path}.stabilizationWindowSeconds`, w, w < 0 ? 'must be greater than or equal to zero' : 'must be less than or equal to 3600'));
  if (r.selectPolicy !== undefined && !SELECT_POLICIES.includes(r.selectPolicy)) errs.push(notSupported(`${path}.selectPolicy`, r.selectPolicy, SELECT_POLICIES));
  (r.policies ?? []).forEach((p, i) => {
    const pp = `${path}.policies[${i}]`;
    if (!POLICY_TYPES.includes(p.type)) errs.push(notSupported(`${pp}.type`, p.type, POLICY_TYPES));
    if (!(p.value > 0)) errs.push(invalid(`${pp}.value`, p.value, 'must be greater than zero'));
    if (!(p.periodSeconds > 0) || p.periodSeconds > 1800) errs.push(invalid(`${pp}.periodSeconds`, p.periodSeconds, p.periodSeconds > 1800 ? 'must be less than or equal to 1800' : 'must be greater than zero'));
  });
  return errs;
}

/** Upstream's HPA validation, for autoscaling/v2 and the v1 form. */
export function validateHorizontalPodAutoscaler(hpa: HorizontalPodAutoscaler | HpaV1): ErrorList {
  const errs = validateObjectMeta(hpa.metadata, true, nameIsDNSSubdomain);
  const spec = hpa.spec;
  if (!spec) return [...errs, required('spec')];
  const ref = spec.scaleTargetRef;
  if (!ref?.kind) errs.push(required('spec.scaleTargetRef.kind'));
  if (!ref?.name) errs.push(required('spec.scaleTargetRef.name'));
  const min = spec.minReplicas;
  if (min !== undefined && min < 1) errs.push(invalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (!(spec.maxReplicas >= 1)) errs.push(invalid('spec.maxReplicas', spec.maxReplicas, 'must be greater than 0'));
  if (min !== undefined && spec.maxReplicas < min) errs.push(invalid('spec.maxReplicas', spec.maxReplicas, 'must be greater than or equal to `minReplicas`'));
  if ('targetCPUUtilizationPercentage' in spec && spec.targetCPUUtilizationPercentage !== undefined && spec.targetCPUUtilizationPercentage < 1) {
    errs.push(invalid('spec.targetCPUUtilizationPercentage', spec.targetCPUUtilizationPercentage, 'must be greater than 0'));
  }
  if ('metrics' in spec) (spec.metrics ?? []).forEach((m, i) => errs.push(...validateMetric(m, `spec.metrics[${i}]`)));
  if ('behavior' in spec && spec.behavior) {
    errs.push(...validateRules(spec.behavior.scaleUp, 'spec.behavior.scaleUp'), ...validateRules(spec.behavior.scaleDown, 'spec.behavior.scaleDown'));
  }
  return errs;
}
