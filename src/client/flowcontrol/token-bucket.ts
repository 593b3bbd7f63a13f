import { realClock, type Clock } from '../../base/clock.js';

export interface TokenBucketOptions {
  /** Tokens added per second. */
  qps: number;
  /** Bucket size: how many requests may go at once after a quiet period. */
  burst: number;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/**
 * A token bucket like golang.org/x/time/rate: starts full, refills at `qps`.
 * `reserve()` takes a token now or in the future and says how long to wait,
 * so callers can either sleep (`wait`) or schedule (`when`).
 */
export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  constructor(options: TokenBucketOptions) {
    if (options.qps <= 0 || options.burst < 1) throw new RangeError('token bucket needs qps > 0 and burst >= 1');
    this.qps = options.qps;
    this.burst = options.burst;
    this.clock = options.clock ?? realClock;
    this.tokens = options.burst;
    this.last = this.clock.now();
  }

  /** Takes a token if one is available right now. */
  tryAccept(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Takes a token (possibly going into debt) and returns the wait in ms before using it. */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  /** Waits for a token; resolves early (without a token's guarantee) if the signal aborts. */
  async wait(signal?: AbortSignal): Promise<void> {
    const delay = this.reserve();
    if (delay > 0) await this.clock.sleep(delay, signal);
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last) / 1000;
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + elapsed * this.qps);
  }
}
