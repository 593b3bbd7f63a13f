/**
 * Seat borrowing between priority levels (upstream KEP-1040, v1's
 * `lendablePercent` and `borrowingLimitPercent`): every adjustment period
 * each Limited level's current concurrency limit (CurrentCL) is set from
 * its recent seat demand, within [NominalCL − LendableCL, NominalCL +
 * BorrowingCL], the limits summing to the nominal limits' sum.
 */

/** One level's bounds and wish for the next period (upstream's allocProblemItem). */
export interface AllocationItem {
  lowerBound: number;
  upperBound: number;
  target: number;
}

/** Upstream treats a smaller target as this, so that every level keeps some weight. */
const MIN_TARGET = 0.001;

/**
 * Shares `total` seats among the items: each gets `fairProp × target`
 * clamped to its bounds, with the one `fairProp` that makes them sum to
 * `total` (as upstream's computeConcurrencyAllocation). When the lower
 * bounds alone exceed `total` each gets its lower bound; when the upper
 * bounds fall short, its upper bound.
 */
export function allocateConcurrency(total: number, items: readonly AllocationItem[]): number[] {
  const targets = items.map((i) => Math.max(i.target, MIN_TARGET, i.lowerBound));
  const lowSum = items.reduce((s, i) => s + i.lowerBound, 0);
  const highSum = items.reduce((s, i) => s + i.upperBound, 0);
  if (lowSum >= total) return items.map((i) => i.lowerBound);
  if (highSum <= total) return items.map((i) => i.upperBound);
  const at = (p: number) => items.reduce((s, item, k) => s + clamp(p * targets[k], item.lowerBound, item.upperBound), 0);
  // the sum grows with fairProp: bisect between a fairProp giving the lower bounds and one giving the upper ones
  let low = 0;
  let high = Math.max(...items.map((item, k) => item.upperBound / targets[k]));
  for (let round = 0; round < 100 && high - low > 1e-9 * high; round++) {
    const mid = (low + high) / 2;
    if (at(mid) < total) low = mid;
    else high = mid;
  }
  return items.map((item, k) => clamp(high * targets[k], item.lowerBound, item.upperBound));
}

function clamp(x: number, low: number, high: number): number {
  return Math.max(low, Math.min(high, x));
}

/** Upstream's smoothing coefficient for seat demand (seatDemandSmoothingCoefficient). */
const SMOOTHING = 0.977;

/**
 * A level's seat demand (seats executing plus seats of waiting requests),
 * integrated over time: the period's average, standard deviation and high
 * watermark, and upstream's smoothed figure, max(envelope, 0.977 × previous
 * + 0.023 × envelope) with envelope = average + standard deviation.
 */
export class SeatDemand {
  private demand = 0;
  private since: number;
  private start: number;
  private integral = 0;
  private squares = 0;
  private max = 0;
  smoothed = 0;
  highWatermark = 0;

  constructor(private readonly now: () => number) {
    this.since = this.start = now();
  }

  /** The demand changed to `demand`. */
  set(demand: number): void {
    this.accumulate();
    this.demand = demand;
    if (demand > this.max) this.max = demand;
  }

  /** Ends the period: updates the smoothed demand and the high watermark, starts a new period. */
  endPeriod(): void {
    this.accumulate();
    const duration = this.since - this.start;
    this.highWatermark = this.max;
    if (duration > 0) {
      const average = this.integral / duration;
      const deviation = Math.sqrt(Math.max(0, this.squares / duration - average * average));
      const envelope = average + deviation;
      this.smoothed = Math.max(envelope, SMOOTHING * this.smoothed + (1 - SMOOTHING) * envelope);
    }
    this.start = this.since;
    this.integral = this.squares = 0;
    this.max = this.demand;
  }

  private accumulate(): void {
    const t = this.now();
    const dt = t - this.since;
    if (dt > 0) {
      this.integral += this.demand * dt;
      this.squares += this.demand * this.demand * dt;
    }
    this.since = t;
  }
}
