import { realClock } from '../../base/clock.js';

/**
 * Waits `ms` milliseconds on the real clock, or less if the signal aborts
 * (resolving, not rejecting). Logic that should be testable without waiting
 * takes a Clock from src/base/clock.ts and calls its `sleep` instead.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return realClock.sleep(ms, signal);
}
