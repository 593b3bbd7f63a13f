import { realClock, type Clock } from '../../base/clock.js';
export interface EventAggregatorOptions {
  /** Distinct messages of one kind of event before they are combined (upstream: 10). */
  maxEvents?: number;
  /** How long a group of similar events stays open after its last one, in ms (upstream: 10 minutes). */
  intervalMs?: number;
  /** Groups tracked before the least recently used is forgotten. */
  maxKeys?: number;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/** What an event is deduplicated on, and the message it is sent with. */
export interface Aggregated {
  key: string;
  message: string;
}

export const COMBINED_PREFIX = '(combined from similar events): ';

interface Group {
  messages: Set<string>;
  lastAt: number;
}

/**
 * Upstream's EventAggregator: events that differ only in their message
 * (same source, object, type and reason) are "similar". The first few keep
 * their own identity; once `maxEvents` distinct messages arrived within the
 * interval, further ones all map to one combined event, whose count then
 * grows instead of the number of Event objects.
 */
export class EventAggregator {
  private readonly groups = new Map<string, Group>();
  private readonly maxEvents: number;
  private readonly intervalMs: number;
  private readonly maxKeys: number;
  private readonly clock: Clock;

  constructor(options: EventAggregatorOptions = {}) {
    this.maxEvents = options.maxEvents ?? 10;
    this.intervalMs = options.intervalMs ?? 600_000;
    this.maxKeys = options.maxKeys ?? 4096;
    this.clock = options.clock ?? realClock;
  }

  /** `similarKey` identifies everything but the message; `exactKey` includes it. */
  aggregate(similarKey: string, exactKey: string, message: string): Aggregated {
    const now = this.clock.now();
    let group = this.groups.get(similarKey);
    if (group) this.groups.delete(similarKey);
    if (!group || now - group.lastAt > this.intervalMs) group = { messages: new Set(), lastAt: now };
    group.lastAt = now;
    this.groups.set(similarKey, group); // re-insert: Map order is our LRU order
    if (this.groups.size > this.maxKeys) this.groups.delete(this.groups.keys().next().value!);

    group.messages.add(message);
    if (group.messages.size < this.maxEvents) return { key: exactKey, message };
    // Keep the set bounded: it only needs to stay at the threshold.
    group.messages.delete(group.messages.values().next().value!);
    return { key: `${similarKey}\u0000combined`, message: COMBINED_PREFIX + message };
  }
}
