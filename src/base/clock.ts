import { readFileSync, watchFile } from 'node:fs';

/** A timer a Clock started; pass it back to `clearTimeout`. */
export type TimerHandle = { readonly id: number } | ReturnType<typeof setTimeout>;

/**
 * Where time comes from. Logic that reads the time or waits takes a Clock
 * (default `realClock`), so tests drive it with a FakeClock instead of
 * sleeping and hoping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Milliseconds on a clock that only moves forward (performance.now): for
   * measuring durations and expiries, which a step of the wall clock (NTP,
   * an operator, a VM resume) must not stretch or shrink.
   */
  monotonic(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
  /**
   * Waits `ms` milliseconds, or less if the signal aborts. It resolves rather
   * than rejects on abort: loops check `signal.aborted` themselves, which
   * keeps shutdown free of spurious errors.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A `sleep` for any clock's timers. */
export function sleepOn(clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      resolve();
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * TEST ONLY: a step of this process's wall clock, as `faketime` would make
 * one. When SKIFF_TEST_CLOCK_OFFSET_FILE names a file, its content (a number
 * of milliseconds, e.g. -3600000) is added to `realClock.now()` and re-read
 * whenever the file changes, so an e2e test can step a running process's
 * clock back or forth. Monotonic time and timers are never offset, as a real
 * step leaves them alone. Never set in production.
 */
let wallClockOffsetMs = 0;
const offsetFile = process.env.SKIFF_TEST_CLOCK_OFFSET_FILE;
if (offsetFile) {
  const readOffset = (): void => {
    try {
      const ms = Number(readFileSync(offsetFile, 'utf8').trim());
      wallClockOffsetMs = Number.isFinite(ms) ? ms : 0;
    } catch {
      wallClockOffsetMs = 0;
    }
  };
  readOffset();
  watchFile(offsetFile, { interval: 100, persistent: false }, readOffset);
}

/** The process's clock: Date.now and the global timers. */
export const realClock: Clock = {
  now: () => Date.now() + wallClockOffsetMs,
  monotonic: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout> | undefined),
  sleep: (ms, signal) => sleepOn(realClock, ms, signal),
};

/** RFC 3339 in UTC with whole seconds, as Kubernetes writes metav1.Time. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
