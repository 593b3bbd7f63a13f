import type { WatchEvent } from '../storage.js';

/** A live subscriber: receives events committed after it joined. */
export interface WatchSubscriber {
  readonly prefix: string;
  /** Called synchronously after each commit, in revision order. */
  deliver(event: WatchEvent): void;
  /** Ends the subscription with an error. */
  fail(err: unknown): void;
  /** Optional: report progress at the current revision once the events before it are taken. */
  requestProgress?(): void;
}

/**
 * In-process fan-out of committed events to watchers. The writer calls
 * publish right after its transaction commits, so this process's own writes
 * reach watchers without polling.
 */
export class WatchHub {
  private readonly subscribers = new Set<WatchSubscriber>();

  add(subscriber: WatchSubscriber): void {
    this.subscribers.add(subscriber);
  }

  remove(subscriber: WatchSubscriber): void {
    this.subscribers.delete(subscriber);
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** Ends every subscription (the store is closing). */
  failAll(err: unknown): void {
    for (const subscriber of [...this.subscribers]) subscriber.fail(err);
    this.subscribers.clear();
  }

  /** Asks every subscriber that reports progress to do so (etcd's progress request). */
  requestProgress(): void {
    for (const subscriber of [...this.subscribers]) subscriber.requestProgress?.();
  }

  publish(events: readonly WatchEvent[]): void {
    if (events.length === 0) return;
    // A subscriber may remove itself while being delivered to (e.g. on overflow); iterate a copy.
    for (const subscriber of [...this.subscribers]) {
      for (const event of events) {
        if (event.kv.key.startsWith(subscriber.prefix)) subscriber.deliver(event);
      }
    }
  }
}
