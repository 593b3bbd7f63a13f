import { sleepOn, type Clock, type TimerHandle } from './clock.js';

interface FakeTimer {
  readonly id: number;
  at: number;
  fn: () => void;
}

/**
 * A Clock that moves only when told: `advance(ms)` runs, in time order, every
 * timer (and wakes every sleep) due by then. For tests of logic that waits
 * (leases, backoff, queues, cron) without real waiting.
 */
export class FakeClock implements Clock {
  private current: number;
  /** How far the wall clock was set or stepped away from the monotonic one. */
  private wallShift = 0;
  private nextId = 1;
  private readonly timers = new Map<number, FakeTimer>();

  constructor(start: number | string = Date.parse('2024-01-01T00:00:00Z')) {
    this.current = typeof start === 'string' ? Date.parse(start) : start;
  }

  now(): number {
    return this.current;
  }

  /** Moves with advance() only; set() and stepWall() leave it alone. */
  monotonic(): number {
    return this.current - this.wallShift;
  }

  /**
   * Steps the wall clock by `ms` (negative: backwards), as NTP or an
   * operator would; timers keep their remaining durations, as the kernel's
   * monotonic timers do.
   */
  stepWall(ms: number): void {
    this.current += ms;
    this.wallShift += ms;
    for (const t of this.timers.values()) t.at += ms;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: FakeTimer = { id: this.nextId++, at: this.current + Math.max(0, ms), fn };
    this.timers.set(timer.id, timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (handle && typeof handle === 'object' && 'id' in handle && typeof handle.id === 'number') this.timers.delete(handle.id);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Timers (including sleeps) not yet fired. */
  pendingTimers(): number {
    return this.timers.size;
  }

  /** Sets the time without firing anything (e.g. to start a test at a given instant). */
  set(ms: number | string): void {
    const next = typeof ms === 'string' ? Date.parse(ms) : ms;
    this.wallShift += next - this.current;
    this.current = next;
  }

  /**
   * Moves time forward by `ms`, firing due timers in order; between timers it
   * lets promise callbacks run, so a woken sleeper can start its next timer
   * within the same advance.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await settle();
      const due = [...this.timers.values()].filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers.delete(due.id);
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = target;
    await settle();
  }
}

/** Lets queued promise callbacks (and the ones they queue) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
