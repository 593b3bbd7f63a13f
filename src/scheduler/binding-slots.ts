/**
 * A counting semaphore for binding cycles in flight. Decisions are much
 * cheaper than API writes: without a bound a backlog of thousands of pods
 * turns into thousands of concurrent requests (each a new connection) and
 * the API server drowns; with it the scheduling loop waits for a free slot,
 * which also hands the event loop to the responses it is waiting for.
 */
export class BindingSlots {
  private used = 0;
  private waiters: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`binding concurrency must be at least 1, got ${limit}`);
  }

  get inUse(): number {
    return this.used;
  }

  /** Resolves once a slot is free (at once if one is), or when the signal aborts. */
  async waitForFree(signal: AbortSignal): Promise<void> {
    while (this.used >= this.limit && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.push(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Takes a slot; callers wait for one first, but taking beyond the limit is allowed (never deadlocks). */
  take(): void {
    this.used++;
  }

  release(): void {
    this.used--;
    const w = this.waiters.shift();
    w?.();
  }
}
