import { DelayingQueue, type DelayingQueueOptions } from './delaying-queue.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';

export interface RateLimitingQueueOptions<T> extends DelayingQueueOptions {
  rateLimiter?: RateLimiter<T>;
}

/** A DelayingQueue whose retries are spaced by a RateLimiter. */
export class RateLimitingQueue<T = string> extends DelayingQueue<T> {
  private readonly rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(options.clock);
  }

  /** Re-adds an item after the limiter's delay (a retry). */
  addRateLimited(item: T): void {
    this.metrics?.retried();
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Resets an item's failure history (it succeeded, or we gave up on it). */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
