import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Waits until the stream drains or the signal aborts, leaving no listener
 * behind either way. (Racing `once(stream, 'drain')` against
 * `once(signal, 'abort')` left one abort listener per wait on the signal: a
 * watcher that hit backpressure often piled up thousands, and every add
 * walked them all.)
 */
export async function drained(stream: Writable, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  try {
    await once(stream, 'drain', { signal });
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}
