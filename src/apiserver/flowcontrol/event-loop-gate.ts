/**
 * Upstream's seats assume a server with many threads: a Go API server runs
 * 600 requests at once and the exempt ones still get a CPU. skiff serves
 * every request on one event loop, where a request the flood is running
 * delays every other one, exempt or not. So the Limited levels' seats also
 * shrink while the event loop lags: their concurrency limits are scaled by
 * a factor that halves whenever the loop is found late by more than
 * `targetLagMs` and grows back a step at a time while it keeps up (additive
 * increase, multiplicative decrease). Waiting requests cost no CPU; what a
 * flood cannot queue is refused cheaply with 429; the exempt level (the
 * admin, probes) is never scaled.
 */
export interface EventLoopGateOptions {
  /** Lateness of the event loop above which the Limited levels' seats are halved. */
  targetLagMs: number;
  /** The smallest factor: each level keeps at least this share of its seats (and at least one). */
  minFactor: number;
  /** How often the loop's lateness is sampled. */
  intervalMs: number;
  /** Added to the factor after each sample that found the loop on time (below half the target). */
  step: number;
}

export const DEFAULT_EVENT_LOOP_GATE: EventLoopGateOptions = { targetLagMs: 50, minFactor: 1 / 16, intervalMs: 20, step: 0.05 };

/** The next factor after a sample that found the loop `lagMs` late. */
export function nextFactor(factor: number, lagMs: number, opts: EventLoopGateOptions): number {
  if (lagMs > opts.targetLagMs) return Math.max(opts.minFactor, factor / 2);
  if (lagMs < opts.targetLagMs / 2) return Math.min(1, factor + opts.step);
  return factor;
}

/**
 * Samples the event loop's lateness until `signal` aborts, calling
 * `onFactor` whenever the factor changes. The timer does not keep the
 * process alive.
 */
export function runEventLoopGate(opts: EventLoopGateOptions, signal: AbortSignal, onFactor: (factor: number) => void): void {
  let factor = 1;
  let due = performance.now() + opts.intervalMs;
  const timer = setInterval(() => {
    const now = performance.now();
    const next = nextFactor(factor, now - due, opts);
    due = now + opts.intervalMs;
    if (next !== factor) {
      factor = next;
      onFactor(factor);
    }
  }, opts.intervalMs);
  timer.unref();
  signal.addEventListener(
    'abort',
    () => {
      clearInterval(timer);
      if (factor !== 1) onFactor(1);
    },
    { once: true },
  );
}
