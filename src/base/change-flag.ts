import { realClock, type Clock } from './clock.js';

/**
 * "Something changed" for a level-triggered loop that recomputes the whole
 * state on each pass (kube-proxy, the network policy controller, the pod
 * network): informer handlers `mark()` it, the loop `wait()`s for a mark or
 * its resync period, `take()`s the mark and syncs everything. Changes made
 * while a sync runs mark it again, so none is lost and bursts coalesce.
 * It starts marked: the first pass syncs at once.
 */
export class ChangeFlag {
  private marked = true;
  private wake?: () => void;

  constructor(private readonly clock: Clock = realClock) {}

  /** Records a change and wakes the waiting loop. */
  mark(): void {
    this.marked = true;
    this.wake?.();
  }

  /** Whether a change is recorded and not yet taken. */
  get pending(): boolean {
    return this.marked;
  }

  /** Clears the mark: the loop is about to sync what is there now. */
  take(): void {
    this.marked = false;
  }

  /**
   * Resolves at once when marked; otherwise on the next mark, after
   * `periodMs` (a periodic resync), or when the signal aborts.
   */
  wait(periodMs: number, signal: AbortSignal): Promise<void> {
    if (this.marked || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.clock.clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wake = undefined;
        resolve();
      };
      const timer = this.clock.setTimeout(done, periodMs);
      signal.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }
}
