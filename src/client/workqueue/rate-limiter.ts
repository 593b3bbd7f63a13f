import { BucketRateLimiter } from './bucket-rate-limiter.js';
import { ItemExponentialFailureRateLimiter } from './item-exponential-failure-rate-limiter.js';
import type { Clock } from '../../base/clock.js';

/** Decides how long an item waits before it is retried. */
export interface RateLimiter<T> {
  /** Delay in ms for this retry of `item` (and counts it). */
  when(item: T): number;
  /** Stops tracking an item (it succeeded or was dropped). */
  forget(item: T): void;
  numRequeues(item: T): number;
}

/** The longest delay of several limiters. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    return Math.max(0, ...this.limiters.map((l) => l.when(item)));
  }

  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: T): number {
    return Math.max(0, ...this.limiters.map((l) => l.numRequeues(item)));
  }
}

/** client-go's DefaultControllerRateLimiter: per-item 5 ms → 1000 s, overall 10 qps / burst 100. */
export function defaultControllerRateLimiter<T>(clock?: Clock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(new ItemExponentialFailureRateLimiter<T>(5, 1_000_000), new BucketRateLimiter<T>(10, 100, clock));
}
