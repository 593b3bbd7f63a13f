import type { HorizontalPodAutoscaler, HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';

function scaleUpDefaults(r: HPAScalingRules): void {
  r.stabilizationWindowSeconds ??= 0;
  r.selectPolicy ??= 'Max';
  r.policies ??= [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }];
}

function scaleDownDefaults(r: HPAScalingRules): void {
  // the scale-down window stays unset: the controller's --horizontal-pod-autoscaler-downscale-stabilization (300 s) applies
  r.selectPolicy ??= 'Max';
  r.policies ??= [{ type: 'Percent', value: 100, periodSeconds: 15 }];
}

/**
 * Upstream's HPA defaults: minReplicas 1; in autoscaling/v2 no metrics means
 * 80% average CPU utilisation, and a given `behavior` gets its missing rules
 * filled in (v1 objects only get minReplicas: the rest is v2's to say).
 */
export function setHorizontalPodAutoscalerDefaults(hpa: HorizontalPodAutoscaler): void {
  if (!hpa.spec) return;
  hpa.spec.minReplicas ??= 1;
  if ((hpa.apiVersion as string | undefined) === 'autoscaling/v1') return;
  if (!hpa.spec.metrics || hpa.spec.metrics.length === 0) {
    hpa.spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  }
  const b = hpa.spec.behavior;
  if (b) {
    scaleUpDefaults((b.scaleUp ??= {}));
    scaleDownDefaults((b.scaleDown ??= {}));
  }
}
