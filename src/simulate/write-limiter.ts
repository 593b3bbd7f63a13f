/**
 * At most `limit` writes in flight; the rest wait their turn in order. The
 * simulated kubelets share it, so a thousand due heartbeats become a steady
 * stream instead of a thousand requests at once.
 */
export class WriteLimiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`write concurrency must be a whole number >= 1, got ${limit}`);
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      // the slot passes straight to the next waiter
      if (next) next();
      else this.active--;
    }
  }

  /** Writes in flight. */
  inFlight(): number {
    return this.active;
  }
}
