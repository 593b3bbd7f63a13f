import type { SpanContext } from '@opentelemetry/api';
import { realClock, type Clock } from '../../base/clock.js';

/** The span that caused one write, as recorded against the write's resourceVersion. */
export interface WriteCause {
  revision: number;
  /** The storage key written. */
  key: string;
  verb: 'create' | 'update' | 'delete';
  cause: SpanContext;
  /** When the write was committed, ms since the epoch. */
  committed: number;
}

export interface WriteCausesOptions {
  /** Writes remembered at most (default 100,000). */
  maxWrites?: number;
  /** Writes older than this are forgotten (default one hour). */
  maxAgeMs?: number;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

export const DEFAULT_MAX_WRITES = 100_000;

/**
 * The bounded side store of write causes: per resourceVersion, the span that
 * caused the write. It lives beside storage, never in the object, so plain
 * clients never see it; skiff's watchers ask for it per event. Oldest
 * writes are evicted first, by count and by age.
 */
export class WriteCauses {
  private readonly byRevision = new Map<number, WriteCause>();
  private readonly byKey = new Map<string, number[]>();
  /** Recorded revisions, oldest first, from `head` on (a queue: walking a Map from its front would step over every deleted slot). */
  private order: number[] = [];
  private head = 0;
  /** Writes in flight per key: a watch may deliver the event before the write's caller hears back. */
  private readonly pending = new Map<string, SpanContext>();
  private maxWrites: number;
  private maxAgeMs: number;
  private readonly clock: Clock;

  constructor(opts: WriteCausesOptions = {}) {
    this.maxWrites = opts.maxWrites ?? DEFAULT_MAX_WRITES;
    this.maxAgeMs = opts.maxAgeMs ?? 60 * 60 * 1000;
    this.clock = opts.clock ?? realClock;
  }

  configure(opts: Pick<WriteCausesOptions, 'maxWrites' | 'maxAgeMs'>): void {
    if (opts.maxWrites !== undefined) this.maxWrites = opts.maxWrites;
    if (opts.maxAgeMs !== undefined) this.maxAgeMs = opts.maxAgeMs;
    this.evict();
  }

  record(revision: number, key: string, verb: WriteCause['verb'], cause: SpanContext): void {
    if (this.maxWrites <= 0) return;
    if (!this.byRevision.has(revision)) this.order.push(revision);
    this.byRevision.set(revision, { revision, key, verb, cause, committed: this.clock.now() });
    let revisions = this.byKey.get(key);
    if (!revisions) this.byKey.set(key, (revisions = []));
    revisions.push(revision);
    this.evict();
  }

  /** A write to `key` caused by `cause` is about to be committed. */
  begin(key: string, cause: SpanContext): void {
    this.pending.set(key, cause);
  }

  /** The write begun for `key` has been committed (and recorded) or has failed. */
  end(key: string, cause: SpanContext): void {
    if (this.pending.get(key) === cause) this.pending.delete(key);
  }

  /**
   * The cause of the write that produced this resourceVersion, if remembered;
   * with the key, also of a write still finishing (its watch event can be
   * delivered before the write's caller resumes).
   */
  causeOf(revision: number, key?: string): WriteCause | undefined {
    const recorded = this.byRevision.get(revision);
    if (recorded || key === undefined) return recorded;
    const cause = this.pending.get(key);
    return cause ? { revision, key, verb: 'update', cause, committed: this.clock.now() } : undefined;
  }

  /** The remembered writes of one key, oldest first. */
  writesOf(key: string): WriteCause[] {
    this.evict();
    return (this.byKey.get(key) ?? []).map((r) => this.byRevision.get(r)!).filter(Boolean);
  }

  size(): number {
    return this.byRevision.size;
  }

  private evict(): void {
    const oldest = this.clock.now() - this.maxAgeMs;
    // revisions are recorded in commit order (near enough)
    while (this.head < this.order.length) {
      const revision = this.order[this.head];
      const w = this.byRevision.get(revision);
      if (w && this.byRevision.size <= this.maxWrites && w.committed >= oldest) break;
      this.head++;
      if (!w) continue;
      this.byRevision.delete(revision);
      const revisions = this.byKey.get(w.key);
      if (!revisions) continue;
      const i = revisions.indexOf(revision);
      if (i >= 0) revisions.splice(i, 1);
      if (revisions.length === 0) this.byKey.delete(w.key);
    }
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }
}
