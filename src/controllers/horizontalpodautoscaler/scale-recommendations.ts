import type { HorizontalPodAutoscalerBehavior, HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';
import type { Clock } from '../../base/clock.js';

/** A condition the normalization wants set: `AbleToScale` (always True here) or `ScalingLimited`. */
export interface ConditionProposal {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface Normalized {
  /** The replicas to scale to. */
  replicas: number;
  ableToScale: ConditionProposal;
  scalingLimited: ConditionProposal;
}

export interface NormalizeInput {
  currentReplicas: number;
  /** What the metrics ask for, before stabilization and limits. */
  desiredReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  behavior?: HorizontalPodAutoscalerBehavior;
}

interface Recommendation {
  replicas: number;
  at: number;
}

interface ScaleEvent {
  change: number;
  at: number;
  outdated: boolean;
}

/** Without `behavior` a scale up goes at most to max(2 × current, 4) per sync. */
const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

const READY: ConditionProposal = { status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
const DOWN_STABILIZED: ConditionProposal = { status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
const UP_STABILIZED: ConditionProposal = { status: 'True', reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' };
const WITHIN_RANGE = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
const TOO_FEW = { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
const TOO_MANY = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
const UP_LIMIT = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
const DOWN_LIMIT = { reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' };

/**
 * The HPA controller's memory per autoscaler (upstream keeps it in the
 * controller, not in the object): recent recommendations for stabilization
 * and recent scale events for `behavior` policies. Times come from the clock.
 */
export class ScaleRecommendations {
  private readonly recommendations = new Map<string, Recommendation[]>();
  private readonly scaleUpEvents = new Map<string, ScaleEvent[]>();
  private readonly scaleDownEvents = new Map<string, ScaleEvent[]>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    /** `--horizontal-pod-autoscaler-downscale-stabilization` (300 s). */
    private readonly downscaleStabilizationMs: number,
  ) {}

  /** The first look at an autoscaler remembers the current count as a recommendation. */
  recordInitial(key: string, currentReplicas: number): void {
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ replicas: currentReplicas, at: this.clock.now() }]);
  }

  forget(key: string): void {
    this.recommendations.delete(key);
    this.scaleUpEvents.delete(key);
    this.scaleDownEvents.delete(key);
  }

  /** Stabilizes the metrics' proposal and bounds it by min/max and the scale rate (upstream's normalizeDesiredReplicas[WithBehaviors]). */
  normalize(key: string, i: NormalizeInput): Normalized {
    return i.behavior ? this.withBehavior(key, i, i.behavior) : this.withoutBehavior(key, i);
  }

  /** Remembers a rescale for the `behavior` policies' periods (nothing to remember without behavior). */
  recordScale(key: string, behavior: HorizontalPodAutoscalerBehavior | undefined, previous: number, next: number): void {
    if (!behavior || previous === next) return;
    const up = next > previous;
    const map = up ? this.scaleUpEvents : this.scaleDownEvents;
    const rules = up ? scaleUpRules(behavior) : scaleDownRules(behavior, this.downscaleStabilizationMs);
    const longest = Math.max(0, ...(rules.policies ?? []).map((p) => p.periodSeconds)) * 1000;
    const now = this.clock.now();
    const events = map.get(key) ?? [];
    for (const e of events) if (e.at < now - longest) e.outdated = true;
    const fresh: ScaleEvent = { change: Math.abs(next - previous), at: now, outdated: false };
    const old = events.findLastIndex((e) => e.outdated);
    if (old >= 0) events[old] = fresh;
    else events.push(fresh);
    map.set(key, events);
  }

  private withoutBehavior(key: string, i: NormalizeInput): Normalized {
    const stabilized = this.stabilizeDown(key, i.desiredReplicas);
    const ableToScale = stabilized !== i.desiredReplicas ? DOWN_STABILIZED : READY;
    const scaleUpLimit = Math.max(SCALE_UP_LIMIT_FACTOR * i.currentReplicas, SCALE_UP_LIMIT_MINIMUM);
    const [maximum, overMax] = i.maxReplicas > scaleUpLimit ? [scaleUpLimit, UP_LIMIT] : [i.maxReplicas, TOO_MANY];
    let replicas = stabilized;
    let limit = WITHIN_RANGE;
    if (stabilized < i.minReplicas) [replicas, limit] = [i.minReplicas, TOO_FEW];
    else if (stabilized > maximum) [replicas, limit] = [maximum, overMax];
    return { replicas, ableToScale, scalingLimited: { status: replicas === stabilized ? 'False' : 'True', ...limit } };
  }

  /** The highest recommendation within the downscale window; the oldest sample outside it is recycled. */
  private stabilizeDown(key: string, desired: number): number {
    const now = this.clock.now();
    const cutoff = now - this.downscaleStabilizationMs;
    const recs = this.recommendations.get(key) ?? [];
    let max = desired;
    let old = -1;
    recs.forEach((r, idx) => {
      if (r.at < cutoff) old = idx;
      else if (r.replicas > max) max = r.replicas;
    });
    const fresh = { replicas: desired, at: now };
    if (old >= 0) recs[old] = fresh;
    else recs.push(fresh);
    this.recommendations.set(key, recs);
    return max;
  }

  private withBehavior(key: string, i: NormalizeInput, behavior: HorizontalPodAutoscalerBehavior): Normalized {
    const up = scaleUpRules(behavior);
    const down = scaleDownRules(behavior, this.downscaleStabilizationMs);
    const now = this.clock.now();
    const upCutoff = now - (up.stabilizationWindowSeconds ?? 0) * 1000;
    const downCutoff = now - (down.stabilizationWindowSeconds ?? 0) * 1000;
    let upRec = i.desiredReplicas;
    let downRec = i.desiredReplicas;
    let old = -1;
    const recs = this.recommendations.get(key) ?? [];
    recs.forEach((r, idx) => {
      if (r.at > upCutoff) upRec = Math.min(r.replicas, upRec);
      if (r.at > downCutoff) downRec = Math.max(r.replicas, downRec);
      if (r.at < upCutoff && r.at < downCutoff) old = idx;
    });
    // the current count moved into [lowest recent up-recommendation, highest recent down-recommendation]
    const stabilized = Math.min(Math.max(i.currentReplicas, upRec), downRec);
    const fresh = { replicas: i.desiredReplicas, at: now };
    if (old >= 0) recs[old] = fresh;
    else recs.push(fresh);
    this.recommendations.set(key, recs);
    const ableToScale = stabilized === i.desiredReplicas ? READY : i.desiredReplicas >= i.currentReplicas ? UP_STABILIZED : DOWN_STABILIZED;
    const { replicas, limit } = this.limitByRate(key, { ...i, desiredReplicas: stabilized }, up, down);
    return { replicas, ableToScale, scalingLimited: { status: replicas === stabilized ? 'False' : 'True', ...limit } };
  }

  /** Upstream's convertDesiredReplicasWithBehaviorRate: min/max and the policies' allowed change per period. */
  private limitByRate(key: string, i: NormalizeInput, up: HPAScalingRules, down: HPAScalingRules): { replicas: number; limit: typeof WITHIN_RANGE } {
    const ups = this.scaleUpEvents.get(key) ?? [];
    const downs = this.scaleDownEvents.get(key) ?? [];
    if (i.desiredReplicas > i.currentReplicas) {
      const rateLimit = Math.max(scaleUpLimit(i.currentReplicas, ups, downs, up, this.clock.now()), i.currentReplicas);
      const [maximum, limit] = i.maxReplicas > rateLimit ? [rateLimit, UP_LIMIT] : [i.maxReplicas, TOO_MANY];
      if (i.desiredReplicas > maximum) return { replicas: maximum, limit };
    } else if (i.desiredReplicas < i.currentReplicas) {
      const rateLimit = Math.min(scaleDownLimit(i.currentReplicas, ups, downs, down, this.clock.now()), i.currentReplicas);
      const [minimum, limit] = i.minReplicas < rateLimit ? [rateLimit, DOWN_LIMIT] : [i.minReplicas, TOO_FEW];
      if (i.desiredReplicas < minimum) return { replicas: minimum, limit };
    }
    return { replicas: i.desiredReplicas, limit: WITHIN_RANGE };
  }
}

/** `behavior.scaleUp` with the API's defaults for what is unset. */
export function scaleUpRules(b: HorizontalPodAutoscalerBehavior): HPAScalingRules {
  const r = b.scaleUp ?? {};
  return {
    stabilizationWindowSeconds: r.stabilizationWindowSeconds ?? 0,
    selectPolicy: r.selectPolicy ?? 'Max',
    policies: r.policies ?? [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
  };
}

/** `behavior.scaleDown` with defaults; an unset window is the controller's downscale stabilization flag. */
export function scaleDownRules(b: HorizontalPodAutoscalerBehavior, downscaleStabilizationMs: number): HPAScalingRules {
  const r = b.scaleDown ?? {};
  return {
    stabilizationWindowSeconds: r.stabilizationWindowSeconds ?? Math.trunc(downscaleStabilizationMs / 1000),
    selectPolicy: r.selectPolicy ?? 'Max',
    policies: r.policies ?? [{ type: 'Percent', value: 100, periodSeconds: 15 }],
  };
}

/** Replicas added (or removed) by the events of the last `periodSeconds`. */
function changeInPeriod(periodSeconds: number, events: readonly ScaleEvent[], now: number): number {
  const cutoff = now - periodSeconds * 1000;
  let sum = 0;
  for (const e of events) if (e.at > cutoff) sum += e.change;
  return sum;
}

function scaleUpLimit(current: number, ups: readonly ScaleEvent[], downs: readonly ScaleEvent[], rules: HPAScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pick = rules.selectPolicy === 'Min' ? Math.min : Math.max;
  let result = rules.selectPolicy === 'Min' ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  for (const p of rules.policies ?? []) {
    const periodStart = current - changeInPeriod(p.periodSeconds, ups, now) + changeInPeriod(p.periodSeconds, downs, now);
    // a percentage rounds up, so a small count can always grow
    const proposed = p.type === 'Pods' ? periodStart + p.value : Math.ceil(periodStart * (1 + p.value / 100));
    result = pick(result, proposed);
  }
  return result;
}

function scaleDownLimit(current: number, ups: readonly ScaleEvent[], downs: readonly ScaleEvent[], rules: HPAScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pick = rules.selectPolicy === 'Min' ? Math.max : Math.min;
  let result = rules.selectPolicy === 'Min' ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  for (const p of rules.policies ?? []) {
    const periodStart = current - changeInPeriod(p.periodSeconds, ups, now) + changeInPeriod(p.periodSeconds, downs, now);
    const proposed = p.type === 'Pods' ? periodStart - p.value : Math.trunc(periodStart * (1 - p.value / 100));
    result = pick(result, proposed);
  }
  return result;
}
