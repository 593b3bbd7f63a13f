import { WatchClosedError } from '../errors.js';
import type { WatchEvent, WatchOptions } from '../storage.js';
import { WatchHub } from './watch-hub.js';
import { WatchStream, type WatchSource } from './watch-stream.js';

/** What a store that keeps its own event log tells its watchers. */
export interface LocalLog {
  currentRevision(): number;
  compactedRevision(): number;
  closed(): boolean;
  /** Past events under the prefix with from <= revision <= to, in revision order, at most `limit`. */
  readHistory(prefix: string, from: number, to: number, limit: number): WatchEvent[];
}

/**
 * The watch side of a storage that commits in this process (SQLite, in
 * memory): watchers replay the store's log, then take live events the writer
 * publishes right after each commit.
 */
export class LocalWatches {
  private readonly hub = new WatchHub();
  private readonly source: WatchSource;

  /** `bufferSize`: live events a watcher may have pending before it is closed as too slow. */
  constructor(
    log: LocalLog,
    private readonly bufferSize = 10_000,
  ) {
    this.source = {
      hub: this.hub,
      currentRevision: () => log.currentRevision(),
      compactedRevision: () => log.compactedRevision(),
      closedError: () => (log.closed() ? new WatchClosedError('storage closed') : undefined),
      readHistory: (prefix, from, to, limit) => log.readHistory(prefix, from, to, limit),
    };
  }

  watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchEvent> {
    // Resolve "from now" at call time, so writes between watch() and the first pull are not missed.
    const startRevision = opts.startRevision > 0 ? opts.startRevision : this.source.currentRevision() + 1;
    return new WatchStream(this.source, {
      prefix,
      startRevision,
      signal: opts.signal,
      bufferSize: this.bufferSize,
      onProgress: opts.onProgress,
      progressIntervalMs: opts.progressIntervalMs,
    });
  }

  requestProgress(): void {
    this.hub.requestProgress();
  }

  /**
   * Fans committed events out; call it before the writer's promise settles,
   * so an acknowledged write is already visible to watchers. `events` is only
   * built when someone watches.
   */
  publish(events: () => WatchEvent[]): void {
    if (this.hub.size > 0) this.hub.publish(events());
  }

  /** Ends every watch (the store is closing). */
  close(): void {
    this.hub.failAll(new WatchClosedError('storage closed'));
  }
}
