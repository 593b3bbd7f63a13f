import type { Clock } from '../../base/clock.js';
import { TokenBucket } from '../flowcontrol/token-bucket.js';
import type { RateLimiter } from './rate-limiter.js';

/** Overall limit across items: a token bucket; retries beyond it are spaced out. */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private readonly bucket: TokenBucket;

  constructor(qps: number, burst: number, clock?: Clock) {
    this.bucket = new TokenBucket({ qps, burst, clock });
  }

  when(_item: T): number {
    return this.bucket.reserve();
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}
