import type { WatchCause } from './watch-event.js';
import type { ListMeta, ObjectMeta } from 'kubernetes-types/meta/v1.js';

/**
 * What the client needs of an object: metadata. Deliberately without an index
 * signature so that the `kubernetes-types` interfaces (Pod, Lease, ...) fit.
 */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
  /** skiff only (asked for with ListOptions.withCauses): per listed resourceVersion, the span that caused that write, where remembered. */
  causes?: Record<string, WatchCause>;
}
