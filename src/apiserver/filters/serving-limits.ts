import { MAX_BODY_BYTES } from '../http/body.js';
import { DEFAULT_IN_FLIGHT_LIMITS, type InFlightLimits } from './max-in-flight.js';

/** What one API server accepts at once and how long it waits (each 0: no limit). */
export interface ServingLimits extends InFlightLimits {
  /** API Priority and Fairness instead of the max-in-flight limits (upstream --enable-priority-and-fairness, true); the two in-flight limits summed are its seats. */
  priorityAndFairness: boolean;
  /** Non-long-running requests answer 504 after this long (upstream --request-timeout, 60 s). */
  requestTimeoutMs: number;
  /** Largest request body (413 beyond; upstream's 3 MiB). */
  maxRequestBytes: number;
  /** A client must have sent all request headers within this long, or its connection is closed (Go's ReadHeaderTimeout upstream: 32 s). */
  headersTimeoutMs: number;
  /** A client must have sent the whole request (headers and body) within this long, or gets 408 and a closed connection. */
  requestReceiveTimeoutMs: number;
}

export const DEFAULT_SERVING_LIMITS: ServingLimits = {
  ...DEFAULT_IN_FLIGHT_LIMITS,
  priorityAndFairness: true,
  requestTimeoutMs: 60_000,
  maxRequestBytes: MAX_BODY_BYTES,
  headersTimeoutMs: 32_000,
  requestReceiveTimeoutMs: 60_000,
};
