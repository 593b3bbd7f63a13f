import Database from 'better-sqlite3';
import { CompactedError, FutureRevisionError, RequestTooLargeError, UnavailableError } from '../errors.js';
import type { DeleteResult, GetResult, ListOptions, ListResult, Storage, StorageAlarm, WatchEvent, WatchOptions, WriteResult } from '../storage.js';
import type { WriteOp, WriteOpResult } from './apply-writes.js';
import { WriteApplier } from './apply-writes.js';
import { Compactor } from './compactor.js';
import { HistoryQuery } from './history-query.js';
import { ListQuery } from './list-query.js';
import { rowEvent } from './log-row.js';
import { openDatabase, readLastRevision } from './schema.js';
import { LocalWatches } from '../fanout/local-watches.js';
import { WriteBatcher } from './write-batcher.js';
import { DEFAULT_QUOTA_BYTES, SpaceGuard } from './space-guard.js';
import { FileIdentity } from './file-identity.js';
import { DurableCommits, FileSync } from './durable-commits.js';

/** etcd's default --max-request-bytes (1.5 MiB): the largest value (with its key) one write may store. */
export const DEFAULT_MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/** Receives the latency of each storage operation (get, list, count, create, update, delete, compact). */
export type ObserveFunc = (op: string, seconds: number) => void;

export interface SqliteStorageOptions {
  /** The database file (created when missing). One process may have it open at a time. */
  path: string;
  /** How long to wait for another process to release the file. Default 5,000 ms. */
  lockTimeoutMs?: number;
  observe?: ObserveFunc;
  /** Live events a watcher may have pending before it is closed as too slow. Default 10,000. */
  watchBufferSize?: number;
  /** Log ids swept per compaction transaction (the event loop runs between them). Default 5,000. */
  compactionChunkSize?: number;
  /** Largest key + value one write may store (etcd's --max-request-bytes). Default 1.5 MiB. */
  maxObjectBytes?: number;
  /** Database size at which the NOSPACE alarm is raised (etcd's --quota-backend-bytes; 0: none). Default 2 GiB. */
  quotaBytes?: number;
}

export interface SqliteStorageStats {
  /** Write transactions committed (group commit makes this far smaller than `writes`). */
  transactions: number;
  /** Write operations (create/update/delete) committed, including failed guards. */
  writes: number;
  /** Pages in the database file, and how many of them are free for reuse. */
  pageCount: number;
  freePages: number;
}

/**
 * Storage over one SQLite file, kine-style (see schema.ts). Writes are group
 * committed and synced to disk off the event loop (DurableCommits); reads run
 * synchronously on the same connection and see only durable data: a
 * revision becomes visible to reads and watches, and its write is
 * acknowledged, once its commit is on disk. One process owns the file:
 * revisions and watch fan-out are tracked in memory.
 */
export class SqliteStorage implements Storage {
  private readonly watches: LocalWatches;
  /** The newest durable revision: what reads, lists and watches see. */
  private revision: number;
  /** The newest committed revision (ahead of `revision` while its sync runs): what writes build on. */
  private committedRevision: number;
  private readonly walSync: FileSync;
  private readonly durability: DurableCommits;
  private closed = false;
  private transactions = 0;
  private writes = 0;
  private readonly applier: WriteApplier;
  private readonly lists: ListQuery;
  private readonly history: HistoryQuery;
  private readonly compactor: Compactor;
  private readonly batcher: WriteBatcher<WriteOp, WriteOpResult>;
  private readonly space: SpaceGuard;
  private readonly file: FileIdentity;
  private readonly pageSize: number;
  /** PRAGMA page_count, prepared once: every commit sizes the file (db.pragma compiles it on each call). */
  private readonly pageCount: Database.Statement<[], number>;

  /** Opens the file; throws IntegrityError for a corrupt or foreign one. */
  static open(opts: SqliteStorageOptions): SqliteStorage {
    return new SqliteStorage(openDatabase(opts.path, opts.lockTimeoutMs), opts);
  }

  private constructor(
    private readonly db: Database.Database,
    private readonly opts: SqliteStorageOptions,
  ) {
    this.revision = readLastRevision(db);
    this.committedRevision = this.revision;
    this.walSync = new FileSync(`${opts.path}-wal`);
    this.durability = new DurableCommits(this.walSync.sync);
    this.file = new FileIdentity(opts.path);
    this.pageSize = db.pragma('page_size', { simple: true }) as number;
    this.pageCount = db.prepare<[], number>('PRAGMA page_count').pluck();
    this.space = new SpaceGuard(opts.path, opts.quotaBytes ?? DEFAULT_QUOTA_BYTES, this.fileBytes());
    this.applier = new WriteApplier(db);
    this.lists = new ListQuery(db);
    this.history = new HistoryQuery(db);
    this.compactor = new Compactor(db, {
      onTransaction: () => this.transactions++,
      ...(opts.compactionChunkSize ? { chunkSize: opts.compactionChunkSize } : {}),
    });
    this.batcher = new WriteBatcher((ops) => this.commit(ops));
    this.watches = new LocalWatches(
      {
        currentRevision: () => this.revision,
        compactedRevision: () => this.compactor.compactedRevision,
        closed: () => this.closed,
        readHistory: (prefix, from, to, limit) => this.history.read(prefix, from, to, limit),
      },
      opts.watchBufferSize,
    );
  }

  async currentRevision(): Promise<number> {
    this.ensureOpen();
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    this.ensureOpen();
    return this.compactor.compactedRevision;
  }

  async get(key: string): Promise<GetResult> {
    return this.measure('get', () => {
      const kv = this.lists.get(key, this.revision);
      return kv ? { kv, revision: this.revision } : { revision: this.revision };
    });
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return this.measure('list', () => {
      const revision = this.readRevision(opts.revision);
      const page = this.lists.list(prefix, revision, opts.limit, opts.startAfter);
      return { kvs: page.kvs, revision, more: page.more, remaining: page.remaining };
    });
  }

  async count(prefix: string): Promise<number> {
    return this.measure('count', () => this.lists.count(prefix, this.revision));
  }

  create(key: string, value: Uint8Array): Promise<WriteResult> {
    return this.write('create', { type: 'create', key, value }) as Promise<WriteResult>;
  }

  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<WriteResult> {
    return this.write('update', { type: 'update', key, value, expectedModRevision }) as Promise<WriteResult>;
  }

  delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const op: WriteOp = expectedModRevision === undefined ? { type: 'delete', key } : { type: 'delete', key, expectedModRevision };
    return this.write('delete', op) as Promise<DeleteResult>;
  }

  watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchEvent> {
    return this.watches.watch(prefix, opts);
  }

  requestWatchProgress(): boolean {
    this.watches.requestProgress();
    return true;
  }

  async compact(revision: number): Promise<void> {
    const started = performance.now();
    this.ensureOpen();
    if (revision > this.revision) throw new FutureRevisionError(revision, this.revision);
    await this.compactor.compact(revision);
    // the compaction's transactions were committed without a sync of their own
    await this.walSync.sync();
    this.space.sized(this.fileBytes(), false);
    this.opts.observe?.('compact', (performance.now() - started) / 1000);
  }

  /** NOSPACE while the quota or the disk is exhausted; CORRUPT once the file was deleted or replaced. */
  async alarms(): Promise<StorageAlarm[]> {
    this.ensureOpen();
    const lost = this.file.check();
    return [...this.space.alarms(), ...(lost ? [{ type: 'CORRUPT' as const, message: lost }] : [])];
  }

  /**
   * Rewrites the file without its free pages (VACUUM, etcd's defragment).
   * Blocks the event loop for the rewrite, as a defragmenting etcd member
   * stops serving. Clears the NOSPACE alarm once the file is under the quota.
   */
  async defragment(): Promise<void> {
    this.ensureOpen();
    this.file.verify();
    await this.compactor.idle().catch(() => undefined);
    const started = performance.now();
    try {
      this.db.exec('VACUUM');
    } catch (err) {
      if (err instanceof Database.SqliteError && err.code === 'SQLITE_FULL') throw this.space.diskFull();
      throw err;
    }
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.space.sized(this.fileBytes(), false);
    this.opts.observe?.('defragment', (performance.now() - started) / 1000);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Acknowledge what is queued before refusing more.
    this.batcher.close();
    await this.durability.idle();
    this.closed = true;
    this.watches.close();
    await this.compactor.idle().catch(() => undefined);
    this.db.close();
    await this.walSync.close();
  }

  stats(): SqliteStorageStats {
    this.ensureOpen();
    return {
      transactions: this.transactions,
      writes: this.writes,
      pageCount: this.db.pragma('page_count', { simple: true }) as number,
      freePages: this.db.pragma('freelist_count', { simple: true }) as number,
    };
  }

  private commit(ops: readonly WriteOp[]): { results: WriteOpResult[]; durable: Promise<void> } {
    // a file deleted or replaced under us would take writes nobody ever reads back: acknowledge none
    this.file.verify();
    let batch;
    try {
      batch = this.db.transaction(() => this.applier.apply(ops, this.committedRevision)).immediate();
    } catch (err) {
      // the transaction rolled back as a whole
      if (err instanceof Database.SqliteError && err.code === 'SQLITE_FULL') throw this.space.diskFull();
      throw err;
    }
    this.space.sized(this.fileBytes(), ops.some((op) => op.type !== 'delete'));
    this.transactions++;
    this.writes += ops.length;
    this.committedRevision = batch.revision;
    const durable = this.durability.committed(() => {
      this.revision = batch.revision;
      this.watches.publish(() => batch.rows.map(rowEvent));
    });
    return { results: batch.results, durable };
  }

  private async write(op: string, write: WriteOp): Promise<WriteOpResult> {
    const started = performance.now();
    try {
      if (write.type !== 'delete') {
        const bytes = write.value.byteLength + Buffer.byteLength(write.key);
        const limit = this.opts.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
        if (bytes > limit) throw new RequestTooLargeError(bytes, limit);
        // as etcd under NOSPACE: writes that add data are refused, deletes still reclaim space
        this.space.checkPut(bytes);
      }
      return await this.batcher.submit(write);
    } finally {
      this.opts.observe?.(op, (performance.now() - started) / 1000);
    }
  }

  private readRevision(requested: number | undefined): number {
    if (!requested) return this.revision;
    const compacted = this.compactor.compactedRevision;
    if (requested < compacted) throw new CompactedError(requested, compacted);
    if (requested > this.revision) throw new FutureRevisionError(requested, this.revision);
    return requested;
  }

  private measure<T>(op: string, read: () => T): T {
    this.ensureOpen();
    const started = performance.now();
    try {
      return read();
    } finally {
      this.opts.observe?.(op, (performance.now() - started) / 1000);
    }
  }

  /** The file's size in bytes, free pages included (what etcd's quota counts). */
  private fileBytes(): number {
    return this.pageCount.get()! * this.pageSize;
  }

  private ensureOpen(): void {
    if (this.closed) throw new UnavailableError('storage is closed');
  }
}
