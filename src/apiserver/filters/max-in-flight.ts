import { ApiError } from '../../machinery/api-error.js';
import type { MetricsRegistry } from '../../base/metrics/registry.js';
import { SYSTEM_MASTERS, type UserInfo } from '../authentication/user-info.js';
import type { RequestInfo } from '../request-info.js';
import { ConcurrencyLimit, type Release } from './concurrency-limit.js';
import { isLongRunning } from './long-running.js';

export interface InFlightLimits {
  /** Read-only requests served at once (upstream --max-requests-inflight, 400; 0: no limit). */
  maxRequestsInflight: number;
  /** Mutating requests served at once (upstream --max-mutating-requests-inflight, 200; 0: no limit). */
  maxMutatingRequestsInflight: number;
  /** Open watches (skiff --max-watches; 0: no limit). Each holds memory for as long as it is open. */
  maxWatches: number;
}

export const DEFAULT_IN_FLIGHT_LIMITS: InFlightLimits = { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200, maxWatches: 20_000 };

const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);

/** Paths the health probes use: never refused, like APF's `probes` FlowSchema (exempt priority level). */
const PROBE_PATHS = /^\/(healthz|livez|readyz)(\/|$)/;

/**
 * Upstream's answer when a limit is reached: 429 with `Retry-After: 1`. One
 * shared instance: under a flood this answer is the hot path, and an Error
 * captures a stack trace each time one is made.
 */
const TOO_MANY_REQUESTS = new ApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', Object.freeze({ retryAfterSeconds: 1 }));

export function tooManyRequests(): ApiError {
  return TOO_MANY_REQUESTS;
}

/**
 * Upstream's WithMaxInFlightLimit: read-only and mutating requests each have
 * a number of slots; a request that finds none free is refused at once with
 * 429 (clients retry after `Retry-After`). Long-running requests (watches,
 * exec, logs, …) are not counted, except that open watches have their own
 * limit because each holds memory. `system:masters` (the admin and skiff's
 * own components with the admin certificate) is never refused, as upstream.
 */
export class MaxInFlightFilter {
  private readonly readOnly: ConcurrencyLimit;
  private readonly mutating: ConcurrencyLimit;
  private readonly watches: ConcurrencyLimit;
  private readonly dropped;
  private readonly current;

  constructor(limits: InFlightLimits, metrics: MetricsRegistry) {
    this.readOnly = new ConcurrencyLimit(limits.maxRequestsInflight);
    this.mutating = new ConcurrencyLimit(limits.maxMutatingRequestsInflight);
    this.watches = new ConcurrencyLimit(limits.maxWatches);
    this.dropped = metrics.counter('apiserver_dropped_requests_total', 'Number of requests dropped with "Too many requests" error, by request kind.', ['request_kind']);
    this.current = metrics.gauge('apiserver_current_inflight_requests', 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.', ['request_kind']);
  }

  /** Takes a slot for the request, or throws 429. Release it when the request is done. */
  admit(info: RequestInfo, user: UserInfo): Release {
    if (PROBE_PATHS.test(info.path) && !info.isResourceRequest) return noop;
    let kind: 'readOnly' | 'mutating' | 'watch';
    if (info.isResourceRequest && info.verb === 'watch') kind = 'watch';
    else if (isLongRunning(info)) return noop;
    else kind = NON_MUTATING_VERBS.has(info.verb) ? 'readOnly' : 'mutating';
    const limit = kind === 'watch' ? this.watches : kind === 'mutating' ? this.mutating : this.readOnly;
    const release = limit.tryAcquire(user.groups.includes(SYSTEM_MASTERS));
    if (!release) {
      this.dropped.inc({ request_kind: kind });
      throw tooManyRequests();
    }
    this.current.set({ request_kind: kind }, limit.inFlight);
    return () => {
      release();
      this.current.set({ request_kind: kind }, limit.inFlight);
    };
  }
}

const noop: Release = () => {};
