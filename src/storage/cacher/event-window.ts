import type { WatchEvent } from '../storage.js';

/**
 * The sliding window of recent events of one resource (upstream's
 * watchCache ring): a fixed-capacity ring in revision order. It can replay
 * every event after `from`, the revision just before its oldest event.
 */
export class EventWindow {
  private readonly ring: (WatchEvent | undefined)[];
  private start = 0;
  private size = 0;
  /** Events with a revision above this are all in the window. */
  from = 0;

  constructor(readonly capacity: number) {
    this.ring = new Array<WatchEvent | undefined>(capacity);
  }

  /** Empties the window; it now covers everything after `revision`. */
  reset(revision: number): void {
    this.ring.fill(undefined);
    this.start = 0;
    this.size = 0;
    this.from = revision;
  }

  push(event: WatchEvent): void {
    if (this.size === this.capacity) {
      // The oldest event falls out; the window now starts at its revision.
      this.from = this.ring[this.start]!.kv.modRevision;
      this.ring[this.start] = undefined;
      this.start = (this.start + 1) % this.capacity;
      this.size--;
    }
    this.ring[(this.start + this.size) % this.capacity] = event;
    this.size++;
  }

  get length(): number {
    return this.size;
  }

  /** Every event with revision >= `revision`, or undefined when some of them already fell out. */
  since(revision: number): WatchEvent[] | undefined {
    if (revision <= this.from) return undefined;
    // Binary search for the first event at or after the revision.
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.at(mid).kv.modRevision < revision) lo = mid + 1;
      else hi = mid;
    }
    const out: WatchEvent[] = [];
    for (let i = lo; i < this.size; i++) out.push(this.at(i));
    return out;
  }

  private at(i: number): WatchEvent {
    return this.ring[(this.start + i) % this.capacity]!;
  }
}
