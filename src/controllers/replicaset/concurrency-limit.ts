/** Runs `fn` once fewer than the limit's calls are in flight; resolves or rejects as `fn` does. */
export type ConcurrencyLimit = <T>(fn: () => Promise<T>) => Promise<T>;

/**
 * Bounds the pod writes in flight. Slow-start batches grow to hundreds of
 * calls; upstream's client multiplexes them over one HTTP/2 connection,
 * while Node's agent opens a TLS connection per concurrent request, so an
 * unbounded batch costs the API server hundreds of handshakes. A few
 * reused keep-alive connections carry the same rate.
 */
export function concurrencyLimit(limit: number): ConcurrencyLimit {
  if (!(limit >= 1)) throw new RangeError(`concurrency limit must be at least 1, got ${limit}`);
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
