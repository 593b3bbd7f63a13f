import type { ServerResponse } from 'node:http';

/** Releases a slot taken from a ConcurrencyLimit; calling it twice is harmless. */
export type Release = () => void;

/** A counting limit without a queue: a slot is taken at once or refused. */
export class ConcurrencyLimit {
  private used = 0;

  /** `limit` 0 or less: unlimited (as upstream's flags). */
  constructor(readonly limit: number) {}

  get inFlight(): number {
    return this.used;
  }

  /** Takes a slot, or returns undefined when all are in use. `force` takes one even then (counted, never refused). */
  tryAcquire(force = false): Release | undefined {
    if (this.limit > 0 && this.used >= this.limit && !force) return undefined;
    this.used++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used--;
    };
  }
}

/** Calls `release` once the response has been handed to the OS (or the connection closed), or now if that already happened. */
export function releaseWhenSent(res: ServerResponse, release: Release): void {
  if (res.writableFinished || res.destroyed) return release();
  res.once('finish', release);
  res.once('close', release);
}

/** Aborts when the response's connection closes (the client left, or the answer was sent). */
export function closedSignal(res: ServerResponse): AbortSignal {
  const closed = new AbortController();
  if (res.destroyed || res.writableFinished) closed.abort();
  else res.once('close', () => closed.abort());
  return closed.signal;
}

/**
 * After a 429 from the limits (whose answer says `Retry-After`), stops
 * reading the connection for `ms` once the answer is out. A well-behaved
 * client waits that long anyway; one that ignores Retry-After and retries
 * at once can otherwise keep the one event loop busy refusing it, and every
 * other request (the exempt admin's too) waits behind the refusals. skiff's
 * own addition: Go's server refuses on many threads and has no such need.
 */
export function holdRefusedConnection(res: ServerResponse, ms: number): void {
  const socket = res.socket;
  if (!socket || ms <= 0) return;
  res.once('finish', () => {
    if (socket.destroyed) return;
    socket.pause();
    const onClose = () => clearTimeout(timer);
    const timer = setTimeout(() => {
      socket.off('close', onClose);
      if (!socket.destroyed) socket.resume();
    }, ms);
    timer.unref();
    socket.once('close', onClose);
  });
}
