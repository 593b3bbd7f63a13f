import { Queue, type QueueOptions } from './queue.js';

/** A Queue that can also add an item after a delay; the earliest pending time for an item wins. */
export class DelayingQueue<T = string> extends Queue<T> {
  private readonly waiting = new Map<T, { readyAt: number; timer: ReturnType<typeof setTimeout> }>();

  constructor(options: QueueOptions = {}) {
    super(options);
  }

  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAt = Date.now() + delayMs;
    const existing = this.waiting.get(item);
    if (existing && existing.readyAt <= readyAt) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
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
    for (const w of this.waiting.values()) clearTimeout(w.timer);
    this.waiting.clear();
    super.shutDown();
  }
}
