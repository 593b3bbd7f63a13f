import type { SpanContext } from '@opentelemetry/api';
import type { PodInfo } from '../framework/pod-info.js';

/** A pod waiting in the scheduling queue, with its attempt history. */
export interface QueuedPodInfo {
  info: PodInfo;
  /** When it (re-)entered the queue; orders pods of equal priority. */
  timestamp: number;
  /** When it was first added, for the end-to-end scheduling latency. */
  initialAttemptTimestamp: number;
  attempts: number;
  /** Plugins that rejected it in the last attempt; only their events re-queue it. */
  unschedulablePlugins: Set<string>;
  /** The traced writes (watch deliveries) that queued or refreshed it since its last attempt. */
  causes?: SpanContext[];
}
