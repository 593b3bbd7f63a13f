import type { Status } from '../../machinery/api-error.js';
import type { ApiObject } from './api-object.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * One line of a watch stream. ERROR carries a metav1.Status (a 410 there
 * means the resourceVersion expired and the watcher must relist); BOOKMARK
 * carries only metadata.resourceVersion.
 */
export type WatchEvent<T extends ApiObject = ApiObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T; cause?: WatchCause }
  | { type: 'ERROR'; object: Status; cause?: undefined };

/**
 * skiff only: the span that caused the write an event reports, sent when the
 * watcher asked with `X-Skiff-Watch-Causes: true`.
 */
export interface WatchCause {
  traceparent: string;
  /** When the write was committed (RFC 3339). */
  committed: string;
}
