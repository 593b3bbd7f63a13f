import type { Event, ObjectReference } from 'kubernetes-types/core/v1.js';
import type { ApiObject } from '../rest/api-object.js';
import type { Client } from '../rest/client.js';
import { isNotFound } from '../rest/error-predicates.js';
import { SpamFilter, type SpamFilterOptions } from './spam-filter.js';
import { EventAggregator, type EventAggregatorOptions } from './event-aggregator.js';
import { EVENTS } from '../../api/resource-refs.js';
import { realClock, type Clock } from '../../base/clock.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  client: Client;
  /** `source.component` and `reportingComponent`, e.g. `deployment-controller`. */
  component: string;
  host?: string;
  spamFilter?: SpamFilterOptions;
  aggregator?: EventAggregatorOptions;
  /** Sending failed; events are best effort and are then dropped. */
  onError?: (err: unknown) => void;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

interface Pending {
  ref: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
  /** What repeats are recognised by: the exact event, or a group of similar ones once combined. */
  key: string;
  at: number;
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
}

const MAX_SEEN = 4096;
/** Upstream's broadcaster queue length: beyond it, events are dropped rather than buffered without limit. */
const MAX_QUEUED = 1000;

/** metav1.Time: RFC 3339 in seconds. */
function time(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Records core/v1 Events about objects without ever blocking the caller:
 * events are queued and sent in the background. As upstream's correlator: a
 * per-object token bucket drops floods; many similar events (differing only
 * in message) are combined into one; and a repeat bumps count and
 * lastTimestamp on the existing Event instead of creating another.
 */
export class EventRecorder {
  private readonly queue: Pending[] = [];
  private readonly seen = new Map<string, Seen>();
  private readonly spam: SpamFilter;
  private readonly aggregator: EventAggregator;
  private readonly clock: Clock;
  private sending?: Promise<void>;
  private stopped = false;
  private sequence = 0;

  constructor(private readonly options: EventRecorderOptions) {
    this.clock = options.clock ?? realClock;
    this.spam = new SpamFilter({ clock: this.clock, ...options.spamFilter });
    this.aggregator = new EventAggregator({ clock: this.clock, ...options.aggregator });
  }

  event(obj: ApiObject, type: EventType, reason: string, message: string): void {
    if (this.stopped) return;
    const m = obj.metadata ?? {};
    const ref: ObjectReference = { apiVersion: obj.apiVersion, kind: obj.kind, name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion };
    const spamKey = JSON.stringify([this.options.component, this.options.host, ref.kind, ref.namespace, ref.name, ref.uid, ref.apiVersion]);
    if (this.queue.length >= MAX_QUEUED || !this.spam.allow(spamKey)) return;
    const source = [this.options.component, this.options.host];
    const similar = JSON.stringify([...source, ref.kind, ref.namespace, ref.name, ref.uid, ref.apiVersion, type, reason]);
    const exact = JSON.stringify([...source, ref.kind, ref.namespace, ref.name, ref.uid, ref.apiVersion, type, reason, message]);
    const aggregated = this.aggregator.aggregate(similar, exact, message);
    this.queue.push({ ref, type, reason, message: aggregated.message, key: aggregated.key, at: this.clock.now() });
    this.sending ??= this.drain().finally(() => (this.sending = undefined));
  }

  /** Resolves when everything recorded so far has been sent (or failed). */
  async flush(): Promise<void> {
    while (this.sending) await this.sending;
  }

  /** Stops accepting events and flushes the queue. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.flush();
  }

  private async drain(): Promise<void> {
    for (let p = this.queue.shift(); p; p = this.queue.shift()) {
      try {
        await this.send(p);
      } catch (err) {
        this.options.onError?.(err);
      }
    }
  }

  private async send(p: Pending): Promise<void> {
    const namespace = p.ref.namespace || 'default';
    const events = this.options.client.resource<Event>(EVENTS).namespace(namespace);
    const key = p.key;
    const previous = this.seen.get(key);
    if (previous) {
      try {
        // The message too: a combined event shows the latest of the messages it stands for.
        await events.patch(previous.name, { count: previous.count + 1, lastTimestamp: time(p.at), message: p.message }, 'merge');
        previous.count++;
        this.remember(key, previous);
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        this.seen.delete(key); // it expired on the server: start a new one
      }
    }
    // Upstream names events `<object>.<hex nanoseconds>`; the sequence keeps names unique within a millisecond.
    const nanos = BigInt(p.at) * 1_000_000n + BigInt(this.sequence++ % 1_000_000);
    const created = await events.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${p.ref.name ?? 'unknown'}.${nanos.toString(16)}`, namespace },
      involvedObject: p.ref,
      reason: p.reason,
      message: p.message,
      type: p.type,
      source: { component: this.options.component, host: this.options.host },
      firstTimestamp: time(p.at),
      lastTimestamp: time(p.at),
      count: 1,
      reportingComponent: this.options.component,
      reportingInstance: this.options.host ?? '',
    });
    this.remember(key, { name: created.metadata?.name ?? '', namespace, count: 1 });
  }

  private remember(key: string, seen: Seen): void {
    this.seen.delete(key);
    this.seen.set(key, seen);
    if (this.seen.size > MAX_SEEN) this.seen.delete(this.seen.keys().next().value!);
  }
}
