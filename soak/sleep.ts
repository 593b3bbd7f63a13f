import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`, or less if `signal` aborts first (never throws). */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch {
    // aborted: the caller checks its signal
  }
}
