import type { ApiObject } from '../rest/api-object.js';
import type { ListerWatcher } from '../cache/list-watcher.js';
import type { ListOptions, WatchOptions } from '../rest/resource-client.js';
import type { WatchEvent } from '../rest/watch-event.js';

/**
 * Wraps a ListerWatcher so a test can cut an informer off the server and let
 * it back later, as a network partition would: `pause()` ends the open watch
 * and holds new ones until `resume()`. Counts full lists (relists show up as
 * a second one) and watches.
 */
export class PausableListWatcher<T extends ApiObject> implements ListerWatcher<T> {
  /** Lists started without a continue token, i.e. (re)lists rather than pages. */
  lists = 0;
  watches = 0;
  private paused = false;
  private resumeWaiters: (() => void)[] = [];
  private readonly open = new Set<AbortController>();

  constructor(private readonly inner: ListerWatcher<T>) {}

  readonly list = (options: ListOptions) => {
    if (!options.continue) this.lists++;
    return this.inner.list(options);
  };

  readonly watch = (options: WatchOptions): AsyncIterable<WatchEvent<T>> => ({
    [Symbol.asyncIterator]: () => this.stream(options),
  });

  /** Ends open watches (quietly, as a server closing them would) and holds new ones. */
  pause(): void {
    this.paused = true;
    for (const c of this.open) c.abort();
  }

  resume(): void {
    this.paused = false;
    for (const w of this.resumeWaiters.splice(0)) w();
  }

  isWatching(): boolean {
    return this.open.size > 0;
  }

  private async *stream(options: WatchOptions): AsyncGenerator<WatchEvent<T>> {
    await this.whileRunning(options.signal);
    if (options.signal?.aborted) return;
    const cut = new AbortController();
    this.open.add(cut);
    this.watches++;
    try {
      const signal = options.signal ? AbortSignal.any([options.signal, cut.signal]) : cut.signal;
      yield* this.inner.watch({ ...options, signal });
    } finally {
      this.open.delete(cut);
    }
  }

  private whileRunning(signal?: AbortSignal): Promise<void> {
    if (!this.paused || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      signal?.addEventListener('abort', done, { once: true });
      this.resumeWaiters.push(done);
    });
  }
}
