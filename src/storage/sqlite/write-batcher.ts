import { StorageError, UnavailableError } from '../errors.js';

/**
 * Commits a batch of operations in one transaction; returns one result per
 * operation, in order, and optionally a promise that settles once the
 * commit is durable (the results are handed out only then).
 */
export type CommitFunc<Op, Result> = (ops: readonly Op[]) => { results: Result[]; durable?: Promise<void> };

interface Pending<Op, Result> {
  op: Op;
  resolve(result: Result): void;
  reject(err: unknown): void;
}

/**
 * Group commit: operations submitted during one event-loop turn are queued
 * and committed together on the next setImmediate, so a burst of writes
 * costs one transaction (and one fsync) instead of one each. A promise
 * settles only after its batch's commit returned and became durable.
 */
export class WriteBatcher<Op, Result> {
  private queue: Pending<Op, Result>[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private closed = false;

  constructor(private readonly commit: CommitFunc<Op, Result>) {}

  submit(op: Op): Promise<Result> {
    if (this.closed) return Promise.reject(new UnavailableError('storage is closed'));
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** Commits everything queued so far. */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    let committed: ReturnType<CommitFunc<Op, Result>>;
    try {
      committed = this.commit(batch.map((p) => p.op));
    } catch (err) {
      // The transaction rolled back as a whole: nothing in the batch happened.
      const failure = err instanceof StorageError ? err : new UnavailableError('storage write failed', { cause: err });
      for (const p of batch) p.reject(failure);
      return;
    }
    const { results, durable } = committed;
    const settle = () => batch.forEach((p, i) => p.resolve(results[i]!));
    if (!durable) return settle();
    durable.then(settle, (err: unknown) => {
      for (const p of batch) p.reject(err);
    });
  }

  /** Commits what is queued and refuses further operations. */
  close(): void {
    this.flush();
    this.closed = true;
  }
}
