import { ApiError } from '../../machinery/api-error.js';

/** Upstream's answer to a request that ran past --request-timeout (apierrors.NewTimeoutError). */
export function requestTimedOut(): ApiError {
  return new ApiError(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout', {});
}

/**
 * A request's deadline. Its AbortSignal is made when something first asks
 * for it: most requests finish without anyone listening, and an
 * AbortController per request is a measurable share of a cheap one.
 */
export class Deadline {
  private controller: AbortController | undefined;
  private passed = false;

  /** Aborts once the deadline has passed (already aborted if it had when first read). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.passed) this.controller.abort();
    }
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.passed;
  }

  expire(): void {
    if (this.passed) return;
    this.passed = true;
    this.controller?.abort();
  }
}

/**
 * Runs `serve` with a deadline (upstream's WithTimeoutForNonLongRunningRequests):
 * when it passes, `deadline` aborts (handlers stop their storage work) and
 * `onTimeout` answers the client (504, or a cut connection once an answer
 * had begun). What `serve` does afterwards is ignored; its failure is handed
 * to `onLateError`. One timer per request and no promise race.
 */
export function withRequestTimeout(
  timeoutMs: number,
  serve: (deadline: Deadline) => Promise<void>,
  onTimeout: () => void,
  onLateError: (err: unknown) => void,
): Promise<void> {
  const deadline = new Deadline();
  if (!(timeoutMs > 0)) return serve(deadline);
  let serving: Promise<void>;
  try {
    serving = serve(deadline);
  } catch (err) {
    serving = Promise.reject(err);
  }
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      deadline.expire();
      serving.catch(onLateError);
      try {
        onTimeout();
        resolve();
      } catch (err) {
        reject(err);
      }
    }, timeoutMs);
    serving.then(
      () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve();
      },
      (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
