import type { WatchEvent } from '../storage.js';

/**
 * The events of every revision from `first` on, one per revision (each write
 * bumps the revision by exactly one), so the event of revision R sits at
 * index R - first.
 */
export class EventLog {
  private events: WatchEvent[] = [];
  private first = 1;

  append(event: WatchEvent): void {
    this.events.push(event);
  }

  /** Events under `prefix` with from <= revision <= to, in order, at most `limit`. */
  read(prefix: string, from: number, to: number, limit: number): WatchEvent[] {
    const out: WatchEvent[] = [];
    const start = Math.max(0, from - this.first);
    const end = Math.min(this.events.length - 1, to - this.first);
    for (let i = start; i <= end && out.length < limit; i++) {
      const event = this.events[i]!;
      if (event.kv.key.startsWith(prefix)) out.push(event);
    }
    return out;
  }

  /** Forgets events below `revision`. */
  compact(revision: number): void {
    const drop = Math.min(this.events.length, revision - this.first);
    if (drop <= 0) return;
    this.events = this.events.slice(drop);
    this.first += drop;
  }
}
