/**
 * Waits `ms` milliseconds, or less if the signal aborts. It resolves rather
 * than rejects on abort: loops check `signal.aborted` themselves, which keeps
 * shutdown free of spurious errors.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
