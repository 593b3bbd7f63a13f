export interface BackoffOptions {
  /** First delay in ms. */
  initial: number;
  /** Upper bound in ms (before jitter). */
  max: number;
  /** Growth per step; 2 doubles. */
  factor?: number;
  /** Adds up to `jitter * delay` at random so that many clients do not retry in lockstep. */
  jitter?: number;
  random?: () => number;
}

/** Jittered exponential backoff: `next()` returns the next delay, `reset()` starts over. */
export class Backoff {
  private current: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly random: () => number;

  constructor(private readonly options: BackoffOptions) {
    this.current = options.initial;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 1;
    this.random = options.random ?? Math.random;
  }

  next(): number {
    const base = this.current;
    this.current = Math.min(this.options.max, this.current * this.factor);
    return Math.round(base + this.random() * this.jitter * base);
  }

  reset(): void {
    this.current = this.options.initial;
  }
}
