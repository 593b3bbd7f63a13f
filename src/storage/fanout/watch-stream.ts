import { CompactedError, WatchClosedError } from '../errors.js';
import type { WatchEvent } from '../storage.js';
import { EventQueue } from './event-queue.js';
import type { WatchHub, WatchSubscriber } from './watch-hub.js';

/** What a watch stream needs from its store. */
export interface WatchSource {
  readonly hub: WatchHub;
  /** Set once the store is closed: new watchers fail with it. */
  closedError(): Error | undefined;
  currentRevision(): number;
  compactedRevision(): number;
  /** Past events under the prefix with from <= revision <= to, in revision order, at most `limit`. */
  readHistory(prefix: string, from: number, to: number, limit: number): WatchEvent[];
}

export interface WatchStreamOptions {
  prefix: string;
  /** First revision to deliver (already resolved: never 0). */
  startRevision: number;
  signal: AbortSignal;
  /** Live events buffered before the watcher is considered too slow and closed. */
  bufferSize: number;
  /** Rows read from the log per replay page. */
  replayPageSize?: number;
  /** Progress notifications (see WatchOptions). */
  onProgress?: (revision: number) => void;
  progressIntervalMs?: number;
}

type Waiter = { resolve(result: IteratorResult<WatchEvent>): void; reject(err: unknown): void };

const done: IteratorResult<WatchEvent> = { done: true, value: undefined };

/**
 * One watcher. On the first pull it joins the hub and notes the current
 * revision R (synchronously, so no commit can slip in between): history in
 * [startRevision, R] is replayed from the log page by page, and live events
 * (> R) are buffered meanwhile, so there is neither a gap nor a duplicate.
 * A watcher whose live buffer fills up is closed with WatchClosedError rather
 * than growing without bound or slowing the writer.
 */
export class WatchStream implements AsyncIterableIterator<WatchEvent>, WatchSubscriber {
  readonly prefix: string;
  private state: 'idle' | 'running' | 'done' = 'idle';
  private readonly replay = new EventQueue<WatchEvent>();
  private replayNext = 0;
  private replayEnd = -1;
  /** Live events, and progress marks (a revision every earlier event reached) where one was asked for. */
  private readonly live = new EventQueue<WatchEvent | number>();
  private markQueued = false;
  private progressTimer: NodeJS.Timeout | undefined;
  private failure: unknown;
  private waiter: Waiter | undefined;
  private readonly onAbort = () => this.finish();

  constructor(
    private readonly source: WatchSource,
    private readonly opts: WatchStreamOptions,
  ) {
    this.prefix = opts.prefix;
    if (opts.signal.aborted) this.state = 'done';
    else opts.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    if (this.state === 'idle') this.start();
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.failure = undefined;
      return Promise.reject(failure);
    }
    if (this.state === 'done') return Promise.resolve(done);
    let event: WatchEvent | number | undefined;
    try {
      for (;;) {
        event = this.nextReplayed() ?? this.live.shift();
        if (typeof event !== 'number') break;
        // every event before the mark has been handed out: the consumer took them all
        this.markQueued = false;
        this.opts.onProgress?.(event);
      }
    } catch (err) {
      this.finish();
      return Promise.reject(err);
    }
    if (event) return Promise.resolve({ done: false, value: event });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<WatchEvent>> {
    this.finish();
    return Promise.resolve(done);
  }

  deliver(event: WatchEvent): void {
    if (this.state !== 'running' || event.kv.modRevision < this.opts.startRevision) return;
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter.resolve({ done: false, value: event });
    } else if (this.live.length >= this.opts.bufferSize) {
      this.fail(new WatchClosedError(`watcher on ${JSON.stringify(this.prefix)} fell more than ${this.opts.bufferSize} events behind`));
    } else {
      this.live.push(event);
    }
  }

  /** Queues a progress report at the store's current revision, after the events already queued. */
  requestProgress(): void {
    if (this.state !== 'running' || !this.opts.onProgress || this.markQueued) return;
    const revision = this.source.currentRevision();
    // a pending pull means nothing is queued or left to replay: every event up to now was taken
    if (this.waiter) this.opts.onProgress(revision);
    else {
      this.markQueued = true;
      this.live.push(revision);
    }
  }

  /** Ends the watch with an error (delivered to the pending or next pull). */
  fail(err: unknown): void {
    if (this.state === 'done') return;
    const waiter = this.waiter;
    this.waiter = undefined;
    this.finish();
    if (waiter) waiter.reject(err);
    else this.failure = err;
  }

  private start(): void {
    if (this.state !== 'idle') return;
    this.state = 'running';
    const closed = this.source.closedError();
    if (closed) {
      this.fail(closed);
      return;
    }
    const compacted = this.source.compactedRevision();
    if (this.opts.startRevision < compacted) {
      this.fail(new CompactedError(this.opts.startRevision, compacted));
      return;
    }
    this.replayNext = this.opts.startRevision;
    this.replayEnd = this.source.currentRevision();
    this.source.hub.add(this);
    if (this.opts.onProgress && this.opts.progressIntervalMs) {
      this.progressTimer = setInterval(() => this.requestProgress(), this.opts.progressIntervalMs);
      this.progressTimer.unref();
    }
  }

  private nextReplayed(): WatchEvent | undefined {
    const buffered = this.replay.shift();
    if (buffered || this.replayNext > this.replayEnd) return buffered;
    // Compaction may have run since the last page: rows at or above the compacted revision are intact.
    const compacted = this.source.compactedRevision();
    if (this.replayNext < compacted) throw new CompactedError(this.replayNext, compacted);
    const pageSize = this.opts.replayPageSize ?? 500;
    const page = this.source.readHistory(this.prefix, this.replayNext, this.replayEnd, pageSize);
    this.replayNext = page.length < pageSize ? this.replayEnd + 1 : page[page.length - 1]!.kv.modRevision + 1;
    for (const event of page) this.replay.push(event);
    return this.replay.shift();
  }

  /** Stops receiving; a pending pull sees the end of the iteration. */
  private finish(): void {
    if (this.state === 'done') return;
    this.state = 'done';
    clearInterval(this.progressTimer);
    this.source.hub.remove(this);
    this.opts.signal.removeEventListener('abort', this.onAbort);
    this.replay.clear();
    this.live.clear();
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve(done);
  }
}
