import { realClock, type Clock, type TimerHandle } from '../../base/clock.js';
import { Queue, type QueueOptions } from './queue.js';

export interface DelayingQueueOptions extends QueueOptions {
  /** Time and timers for delayed adds (default the real clock). */
  clock?: Clock;
}

/** A Queue that can also add an item after a delay; the earliest pending time for an item wins. */
export class DelayingQueue<T = string> extends Queue<T> {
  private readonly waiting = new Map<T, { readyAt: number; timer: TimerHandle }>();
  private readonly clock: Clock;

  constructor(options: DelayingQueueOptions = {}) {
    super(options);
    this.clock = options.clock ?? realClock;
  }

  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.waiting.get(item);
    if (existing && existing.readyAt <= readyAt) return;
    if (existing) this.clock.clearTimeout(existing.timer);
    const timer = this.clock.setTimeout(() => {
      this.waiting.delete(item);
      this.add(item);
    }, delayMs);
    this.waiting.set(item, { readyAt, timer });
  }

  /** Items waiting for their delay to pass. */
  pendingDelayed(): number {
    return this.waiting.size;
  }

  override shutDown(): void {
    for (const w of this.waiting.values()) this.clock.clearTimeout(w.timer);
    this.waiting.clear();
    super.shutDown();
  }
}
