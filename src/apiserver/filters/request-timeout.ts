import { ApiError } from '../../machinery/api-error.js';

/** Upstream's answer to a request that ran past --request-timeout (apierrors.NewTimeoutError). */
export function requestTimedOut(): ApiError {
  return new ApiError(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout', {});
}

/**
 * Runs `serve` with a deadline (upstream's WithTimeoutForNonLongRunningRequests):
 * when it passes, `deadline` aborts (handlers stop their storage work) and
 * `onTimeout` answers the client (504, or a cut connection once an answer
 * had begun). What `serve` does afterwards is ignored; its failure is handed
 * to `onLateError`.
 */
export async function withRequestTimeout(
  timeoutMs: number,
  serve: (deadline: AbortSignal) => Promise<void>,
  onTimeout: () => void,
  onLateError: (err: unknown) => void,
): Promise<void> {
  if (!(timeoutMs > 0)) return serve(new AbortController().signal);
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), timeoutMs);
  });
  const serving = serve(deadline.signal);
  try {
    const first = await Promise.race([serving.then(() => 'served' as const), expired]);
    if (first === 'expired') {
      deadline.abort();
      serving.catch(onLateError);
      onTimeout();
    }
  } finally {
    clearTimeout(timer);
  }
}
