import { dealHand } from './shuffle-shard.js';
import { realClock, type Clock } from '../../base/clock.js';

/** How a priority level limits its requests (from its PriorityLevelConfiguration). */
export interface QueueSetConfig {
  /** Seats: requests executing at once. */
  concurrencyLimit: number;
  /** 0: no queuing, a request finding no free seat is rejected at once (limitResponse Reject). */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

/** Why a request was not served (upstream's `reason` label of apiserver_flowcontrol_rejected_requests_total). */
export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

export type Admitted = { admitted: true; release: () => void; waitedMs: number } | { admitted: false; reason: RejectReason; waitedMs: number };

interface Waiter {
  queue: number;
  enqueuedAt: number;
  settle: (outcome: Admitted) => void;
}

/**
 * One priority level's seats and queues (upstream's queueset). A request
 * takes a free seat at once if no request of the level waits; otherwise it
 * joins the shortest of its flow's hand of queues (shuffle sharding), or is
 * rejected when that queue is at its length limit. A freed seat goes to the
 * head of the non-empty queue with the fewest requests executing, ties in
 * round-robin order: with requests of equal cost this is fair queuing, each
 * active flow getting an equal share of the seats.
 */
export class QueueSet {
  private executing = 0;
  private readonly waiting: Waiter[][];
  private readonly executingByQueue: number[];
  private next = 0;
  private waitingCount = 0;
  private dispatchPending = false;
  /** Hears the level's seat demand (executing plus waiting requests) whenever it changes; for borrowing. */
  onDemand?: (seats: number) => void;

  constructor(
    private config: QueueSetConfig,
    private readonly clock: Clock = realClock,
  ) {
    this.waiting = Array.from({ length: config.queues }, () => []);
    this.executingByQueue = new Array<number>(config.queues).fill(0);
  }

  get executingRequests(): number {
    return this.executing;
  }

  get waitingRequests(): number {
    return this.waitingCount;
  }

  /** Whether `config` can be applied without new queues (only the seats differ). */
  sameQueues(config: QueueSetConfig): boolean {
    return config.queues === this.config.queues && config.handSize === this.config.handSize && config.queueLengthLimit === this.config.queueLengthLimit;
  }

  setConcurrencyLimit(limit: number): void {
    this.config = { ...this.config, concurrencyLimit: limit };
    this.dispatch();
  }

  /**
   * Waits for a seat for a request of the flow with this hash. Settles with
   * a release function, or with why not: its queue was full, the level does
   * not queue, it waited `waitLimitMs`, or `signal` aborted (the client left).
   * `signal` may be a function making it, called only if the request has to
   * wait (most do not, and making one costs). `queueNote` hears when the
   * request enters and leaves a queue.
   */
  admit(hash: number, waitLimitMs: number, signalOrMake?: AbortSignal | (() => AbortSignal), queueNote: (inQueue: boolean) => void = () => {}): Promise<Admitted> {
    const start = this.clock.monotonic();
    if (this.waitingCount === 0 && this.executing < this.config.concurrencyLimit) return Promise.resolve(this.seat(this.config.queues > 0 ? this.chooseQueue(hash) : -1, start));
    if (this.config.queues === 0) return Promise.resolve({ admitted: false, reason: 'concurrency-limit', waitedMs: 0 });
    const queue = this.chooseQueue(hash);
    if (this.waiting[queue].length >= this.config.queueLengthLimit) return Promise.resolve({ admitted: false, reason: 'queue-full', waitedMs: 0 });
    const signal = typeof signalOrMake === 'function' ? signalOrMake() : signalOrMake;
    if (signal?.aborted) return Promise.resolve({ admitted: false, reason: 'cancelled', waitedMs: 0 });
    return new Promise<Admitted>((resolve) => {
      const onAbort = () => giveUp('cancelled');
      const waiter: Waiter = {
        queue,
        enqueuedAt: start,
        settle: (outcome) => {
          clearTimeout(timer);
          queueNote(false);
          signal?.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      };
      const giveUp = (reason: RejectReason) => {
        const q = this.waiting[queue];
        const i = q.indexOf(waiter);
        if (i < 0) return;
        q.splice(i, 1);
        this.waitingCount--;
        this.onDemand?.(this.executing + this.waitingCount);
        waiter.settle({ admitted: false, reason, waitedMs: this.clock.monotonic() - start });
      };
      const timer = setTimeout(() => giveUp('time-out'), waitLimitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting[queue].push(waiter);
      this.waitingCount++;
      this.onDemand?.(this.executing + this.waitingCount);
      queueNote(true);
    });
  }

  /** The queue of the flow's hand with the least work: waiting plus executing requests. */
  private chooseQueue(hash: number): number {
    let best = -1;
    let bestLoad = Infinity;
    for (const q of dealHand(hash, this.config.queues, this.config.handSize)) {
      const load = this.waiting[q].length + this.executingByQueue[q];
      if (load < bestLoad) {
        best = q;
        bestLoad = load;
      }
    }
    return best;
  }

  private seat(queue: number, start: number): Admitted {
    this.executing++;
    if (queue >= 0) this.executingByQueue[queue]++;
    this.onDemand?.(this.executing + this.waitingCount);
    let released = false;
    return {
      admitted: true,
      waitedMs: this.clock.monotonic() - start,
      release: () => {
        if (released) return;
        released = true;
        this.executing--;
        if (queue >= 0) this.executingByQueue[queue]--;
        this.onDemand?.(this.executing + this.waitingCount);
        this.dispatchSoon();
      },
    };
  }

  /**
   * Hands the freed seats out on the event loop's next turn, not now: a
   * seat is freed when an answer has been written, often synchronously
   * from the write itself, and handing it on at once would run the next
   * waiting request from there, and the next, a whole queue of them
   * without ever letting the event loop read another request (the exempt
   * admin's, say). A pending dispatch keeps newcomers in the queue, behind
   * those already waiting.
   */
  private dispatchSoon(): void {
    if (this.dispatchPending || this.waitingCount === 0) return;
    this.dispatchPending = true;
    setImmediate(() => {
      this.dispatchPending = false;
      this.dispatch();
    });
  }

  /** Hands free seats to waiting requests, fairest queue first. */
  private dispatch(): void {
    while (this.executing < this.config.concurrencyLimit) {
      const queue = this.fairestQueue();
      if (queue < 0) return;
      const waiter = this.waiting[queue].shift()!;
      this.waitingCount--;
      waiter.settle(this.seat(queue, waiter.enqueuedAt));
    }
  }

  private fairestQueue(): number {
    const n = this.waiting.length;
    let best = -1;
    for (let i = 0; i < n; i++) {
      const q = (this.next + i) % n;
      if (this.waiting[q].length === 0) continue;
      if (best < 0 || this.executingByQueue[q] < this.executingByQueue[best]) best = q;
    }
    if (best >= 0) this.next = (best + 1) % n;
    return best;
  }
}
