import { close, fdatasync, open } from 'node:fs';
import { promisify } from 'node:util';
import { StorageError, UnavailableError } from '../errors.js';

const openFile = promisify(open);
const datasync = promisify(fdatasync);
const closeFile = promisify(close);

/**
 * Makes committed transactions durable off the event loop: SQLite commits
 * with `synchronous = NORMAL` (in WAL mode it writes the commit to the WAL
 * but syncs only at checkpoints), and this syncs the WAL file on the libuv
 * thread pool. A commit's `onDurable` runs, and its promise settles, only
 * after a sync that began after the commit finished, so nothing is
 * acknowledged, shown to readers or sent to watchers before it is on disk,
 * as with `synchronous = FULL` — but the event loop keeps serving while the
 * disk flushes, and the commits of that time share the next sync (group
 * commit).
 *
 * A failed sync is final: the pages may never reach the disk, so the writes
 * it covered and every later one are refused (503), as etcd stops on a
 * failed WAL fsync.
 */
export class DurableCommits {
  private waiting: { onDurable: () => void; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private syncing: Promise<void> | undefined;
  private failure: StorageError | undefined;

  constructor(private readonly sync: () => Promise<void>) {}

  /** Call right after a commit; `onDurable` runs in commit order once the commit is on disk. */
  committed(onDurable: () => void): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ onDurable, resolve, reject });
      this.next();
    });
  }

  /** Resolves once every commit so far is durable (or refused). */
  async idle(): Promise<void> {
    while (this.syncing) await this.syncing;
  }

  private next(): void {
    if (this.syncing || this.waiting.length === 0) return;
    const covered = this.waiting;
    this.waiting = [];
    this.syncing = this.sync().then(
      () => {
        for (const c of covered) {
          c.onDurable();
          c.resolve();
        }
      },
      (err: unknown) => {
        this.failure = new UnavailableError('storage sync failed; writes are refused until restart', { cause: err });
        for (const c of [...covered, ...this.waiting]) c.reject(this.failure);
        this.waiting = [];
      },
    ).finally(() => {
      this.syncing = undefined;
      this.next();
    });
  }
}

/** fdatasync of a file (SQLite's WAL), opened on first use and kept open. */
export class FileSync {
  private fd: Promise<number> | undefined;

  constructor(private readonly path: string) {}

  readonly sync = async (): Promise<void> => {
    if (!this.fd) {
      const opening = openFile(this.path, 'r');
      this.fd = opening;
      // a failed open is tried again next time
      opening.catch(() => {
        if (this.fd === opening) this.fd = undefined;
      });
    }
    await datasync(await this.fd);
  };

  async close(): Promise<void> {
    const fd = this.fd;
    this.fd = undefined;
    const n = await fd?.catch(() => undefined);
    if (n !== undefined) await closeFile(n).catch(() => undefined);
  }
}
