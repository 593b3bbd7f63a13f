import type { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';

/**
 * Notifications from an informer. Objects are the cache's own (read-only;
 * clone before changing). A delete may carry a tombstone when the final state
 * was missed.
 */
export interface ResourceEventHandler<T> {
  onAdd?(obj: T, isInInitialList: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

export interface HandlerRegistration {
  remove(): void;
}
