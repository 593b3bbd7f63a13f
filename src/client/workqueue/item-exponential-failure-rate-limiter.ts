import type { RateLimiter } from './rate-limiter.js';

/** Per item: base × 2^failures, capped at max (ms). */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  when(item: T): number {
    const n = this.failures.get(item) ?? 0;
    this.failures.set(item, n + 1);
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}
