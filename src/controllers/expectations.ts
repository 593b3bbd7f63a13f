import { realClock, type Clock } from '../base/clock.js';
/** How long an unmet expectation is trusted before the controller acts anyway (upstream: 5 minutes). */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

interface Expectation {
  adds: number;
  deletes: Set<string>;
  at: number;
}

/**
 * What a controller is waiting to see in its cache after its own creates and
 * deletes (client-go's UIDTrackingControllerExpectations). While a key has
 * unmet expectations the cache lags behind the controller's writes, so it
 * must not count pods and act again, or it would over-create or over-delete.
 */
export class ControllerExpectations {
  private readonly byKey = new Map<string, Expectation>();

  constructor(private readonly clock: Clock = realClock) {}

  /** True when the cache has caught up with every write (or the wait expired, or nothing is expected). */
  satisfied(key: string): boolean {
    const e = this.byKey.get(key);
    if (!e) return true;
    if (e.adds <= 0 && e.deletes.size === 0) return true;
    return this.clock.now() - e.at > EXPECTATIONS_TIMEOUT_MS;
  }

  expectCreations(key: string, count: number): void {
    this.byKey.set(key, { adds: count, deletes: new Set(), at: this.clock.now() });
  }

  /** `objectKeys` are the `namespace/name` keys of the objects about to be deleted. */
  expectDeletions(key: string, objectKeys: readonly string[]): void {
    this.byKey.set(key, { adds: 0, deletes: new Set(objectKeys), at: this.clock.now() });
  }

  /** A create was seen in the cache, or was never sent / failed. */
  creationObserved(key: string): void {
    const e = this.byKey.get(key);
    if (e) e.adds--;
  }

  /** A delete (or deletionTimestamp) was seen, or the delete failed. */
  deletionObserved(key: string, objectKey: string): void {
    this.byKey.get(key)?.deletes.delete(objectKey);
  }

  delete(key: string): void {
    this.byKey.delete(key);
  }
}
