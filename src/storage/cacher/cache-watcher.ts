import { WatchClosedError } from '../errors.js';
import type { WatchEvent } from '../storage.js';

type Waiter = { resolve(result: IteratorResult<WatchEvent>): void; reject(err: unknown): void };

const done: IteratorResult<WatchEvent> = { done: true, value: undefined };

/** How far a watcher may fall behind: pending events, and their stored bytes (values and previous values). */
export interface WatcherCapacity {
  events: number;
  bytes: number;
}

/** The bytes an event holds on to (its value and previous value). */
export function eventBytes(event: WatchEvent): number {
  return event.kv.value.byteLength + (event.prevKv?.value.byteLength ?? 0) + event.kv.key.length;
}

/** Progress reports a watcher asked for (see WatchOptions.onProgress). */
export interface WatcherProgress {
  onProgress(revision: number): void;
  /** Report about this often; 0 or unset: only when asked (requestProgress). */
  intervalMs?: number;
  /** The cache's revision: every event up to it has been handed to its watchers. */
  revision(): number;
}

/**
 * One client's watch on the cache (upstream's cacheWatcher): the replayed
 * backlog, then live events that pass its key filter, in a bounded buffer.
 * `deliver` never blocks: a watcher whose buffer is full (in events or in
 * bytes) is closed with WatchClosedError (its client relists), so it can
 * neither hold back the others nor pin unbounded memory.
 */
export class CacheWatcher implements AsyncIterableIterator<WatchEvent> {
  private backlog: WatchEvent[];
  private backlogIndex = 0;
  /** Live events, and progress marks (a revision every earlier event reached). */
  private readonly buffer: (WatchEvent | number)[] = [];
  private markQueued = false;
  private progressTimer: NodeJS.Timeout | undefined;
  private bufferHead = 0;
  private bufferBytes = 0;
  private waiter: Waiter | undefined;
  private failure: unknown;
  private finished = false;

  constructor(
    readonly prefix: string,
    private readonly startRevision: number,
    backlog: WatchEvent[],
    private readonly capacity: WatcherCapacity,
    private readonly onFinish: (watcher: CacheWatcher) => void,
    private readonly progress?: WatcherProgress,
  ) {
    // shared with nobody (EventWindow.since copies); filtered as it is read rather than copied again
    this.backlog = backlog;
    if (progress?.intervalMs) {
      this.progressTimer = setInterval(() => this.requestProgress(), progress.intervalMs);
      this.progressTimer.unref();
    }
  }

  /**
   * Queues a progress report at the cache's revision behind the events
   * already queued: the events of other namespaces, or that its client's
   * selector drops, move it on too (upstream's bookmarks at the cache's
   * resourceVersion).
   */
  requestProgress(): void {
    if (this.finished || !this.progress || this.markQueued) return;
    const revision = this.progress.revision();
    // a pending pull means nothing is queued: every event up to now was taken
    if (this.waiter) this.progress.onProgress(revision);
    else {
      this.markQueued = true;
      this.buffer.push(revision);
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Called for each new event of the resource, synchronously, in revision order. */
  deliver(event: WatchEvent): void {
    if (this.finished || event.kv.modRevision < this.startRevision || !event.kv.key.startsWith(this.prefix)) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter.resolve({ done: false, value: event });
      return;
    }
    const size = eventBytes(event);
    const pending = this.buffer.length - this.bufferHead;
    if (pending >= this.capacity.events || (pending > 0 && this.bufferBytes + size > this.capacity.bytes)) {
      this.fail(new WatchClosedError(`watcher on ${JSON.stringify(this.prefix)} fell more than ${pending} events (${this.bufferBytes} bytes) behind`));
      return;
    }
    this.bufferBytes += size;
    this.buffer.push(event);
  }

  fail(err: unknown): void {
    if (this.finished) return;
    const waiter = this.waiter;
    this.waiter = undefined;
    this.finish();
    if (waiter) waiter.reject(err);
    else this.failure = err;
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.failure = undefined;
      return Promise.reject(failure);
    }
    if (this.finished) return Promise.resolve(done);
    while (this.backlogIndex < this.backlog.length) {
      const event = this.backlog[this.backlogIndex++]!;
      if (event.kv.key.startsWith(this.prefix)) return Promise.resolve({ done: false, value: event });
    }
    while (this.bufferHead < this.buffer.length) {
      const event = this.buffer[this.bufferHead++]!;
      if (this.bufferHead > 1024 && this.bufferHead * 2 > this.buffer.length) {
        this.buffer.splice(0, this.bufferHead);
        this.bufferHead = 0;
      }
      if (typeof event === 'number') {
        // every event before the mark has been handed out
        this.markQueued = false;
        this.progress?.onProgress(event);
        continue;
      }
      this.bufferBytes -= eventBytes(event);
      return Promise.resolve({ done: false, value: event });
    }
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  async return(): Promise<IteratorResult<WatchEvent>> {
    this.finish();
    return done;
  }

  /** Stops receiving; a pending pull sees the end of the iteration. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    clearInterval(this.progressTimer);
    this.backlog = [];
    this.buffer.length = 0;
    this.bufferBytes = 0;
    this.onFinish(this);
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve(done);
  }
}
