import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import { rfc3339 } from '../../base/clock.js';

export type HpaConditionType = 'AbleToScale' | 'ScalingActive' | 'ScalingLimited';

/**
 * Upstream's setCondition: replaces the condition of that type in place (new
 * ones are appended), moving lastTransitionTime only when the status changes.
 */
export function setCondition(hpa: HorizontalPodAutoscaler, type: HpaConditionType, status: 'True' | 'False', reason: string, message: string, now: number): void {
  const status_ = (hpa.status ??= { desiredReplicas: 0 });
  const conditions = (status_.conditions ??= []);
  const existing = conditions.find((c) => c.type === type);
  if (!existing) {
    conditions.push({ type, status, reason, message, lastTransitionTime: rfc3339(now) });
    return;
  }
  if (existing.status !== status) existing.lastTransitionTime = rfc3339(now);
  existing.status = status;
  existing.reason = reason;
  existing.message = message;
}
