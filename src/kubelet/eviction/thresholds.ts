import { SIGNALS, type PressureCondition, type SignalObservations } from './signals.js';
import { thresholdQuantity, type Threshold } from './threshold-config.js';

/**
 * The thresholds whose signal is below them, whatever their grace period;
 * with `enforceMinReclaim`, below them plus their minimum reclaim (so a
 * threshold once met stays met until that much more is free).
 */
export function thresholdsMet(thresholds: readonly Threshold[], observations: SignalObservations, enforceMinReclaim: boolean): Threshold[] {
  return thresholds.filter((t) => {
    const observed = observations.get(t.signal);
    if (!observed) return false;
    let quantity = thresholdQuantity(t.value, observed.capacity);
    if (enforceMinReclaim && t.minReclaim) quantity += thresholdQuantity(t.minReclaim, observed.capacity);
    return quantity > observed.available;
  });
}

/** `a` plus the thresholds of `b` not already in it. */
export function mergeThresholds(a: readonly Threshold[], b: readonly Threshold[]): Threshold[] {
  return [...a, ...b.filter((t) => !a.includes(t))];
}

/** When each met threshold was first seen met: kept from `last`, else now. */
export function thresholdsFirstObservedAt(thresholds: readonly Threshold[], last: ReadonlyMap<Threshold, number>, now: number): Map<Threshold, number> {
  return new Map(thresholds.map((t) => [t, last.get(t) ?? now]));
}

/** The thresholds met for at least their grace period. */
export function thresholdsMetGracePeriod(observedAt: ReadonlyMap<Threshold, number>, now: number): Threshold[] {
  return [...observedAt].filter(([t, at]) => now - at >= t.gracePeriodMs).map(([t]) => t);
}

/** The node conditions the thresholds drive. */
export function nodeConditionsOf(thresholds: readonly Threshold[]): PressureCondition[] {
  return [...new Set(thresholds.map((t) => SIGNALS[t.signal].condition))];
}

/** When each condition was last seen: the ones seen now at `now`, the others as before. */
export function conditionsLastObservedAt(conditions: readonly PressureCondition[], last: ReadonlyMap<PressureCondition, number>, now: number): Map<PressureCondition, number> {
  const out = new Map(last);
  for (const c of conditions) out.set(c, now);
  return out;
}

/** The conditions seen within the transition period: a condition stays True that long after its last sighting. */
export function conditionsObservedSince(observedAt: ReadonlyMap<PressureCondition, number>, periodMs: number, now: number): PressureCondition[] {
  return [...observedAt].filter(([, at]) => now - at < periodMs).map(([c]) => c);
}

/** Memory first; thresholds whose signal has no resource to reclaim last (upstream's byEvictionPriority). */
export function byEvictionPriority(thresholds: readonly Threshold[]): Threshold[] {
  return [...thresholds].sort((a, b) => Number(b.signal === 'memory.available') - Number(a.signal === 'memory.available'));
}
