import type { Clock } from '../../base/clock.js';
import { TokenBucket } from '../flowcontrol/token-bucket.js';

export interface SpamFilterOptions {
  /** Events an object may emit at once (upstream: 25). */
  burst?: number;
  /** Refill interval in ms per token (upstream: one per 5 minutes). */
  refillEveryMs?: number;
  /** Objects tracked before the least recently used is forgotten. */
  maxKeys?: number;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/** Upstream's EventSourceObjectSpamFilter: a token bucket per source + object. */
export class SpamFilter {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly burst: number;
  private readonly qps: number;
  private readonly maxKeys: number;

  constructor(private readonly options: SpamFilterOptions = {}) {
    this.burst = options.burst ?? 25;
    this.qps = 1000 / (options.refillEveryMs ?? 300_000);
    this.maxKeys = options.maxKeys ?? 4096;
  }

  /** True if an event for this key may be sent now. */
  allow(key: string): boolean {
    let bucket = this.buckets.get(key);
    if (bucket) this.buckets.delete(key);
    else bucket = new TokenBucket({ qps: this.qps, burst: this.burst, clock: this.options.clock });
    this.buckets.set(key, bucket); // re-insert: Map order is our LRU order
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    return bucket.tryAccept();
  }
}
