import type Database from 'better-sqlite3';
import { metaKeys, readMeta, writeMeta } from './schema.js';

export interface CompactorOptions {
  /** Log ids swept per transaction; the event loop is released between chunks. */
  chunkSize?: number;
  /** Called once per committed transaction (for stats). */
  onTransaction?: () => void;
}

/**
 * Compaction at revision R keeps the state at R readable and drops what no
 * read at >= R can need: rows superseded by a write at or below R, and delete
 * tombstones below R. (A tombstone at exactly R is kept so that a watch from
 * R still sees that delete.) Each sweep starts where the previous one ended
 * and finds superseded rows through their successors' prev_revision, so its
 * cost follows the writes since the last compaction, not the table size.
 */
export class Compactor {
  private compacted: number;
  private swept: number;
  private running: Promise<void> = Promise.resolve();
  /** Pages in use right after the previous sweep (to size the free-page reserve). */
  private usedAfterSweep: number;
  private readonly chunkSize: number;
  private readonly deleteSuperseded: Database.Statement<[{ lo: number; hi: number }]>;
  private readonly deleteTombstones: Database.Statement<[{ lo: number; hi: number; rev: number }]>;

  constructor(
    private readonly db: Database.Database,
    private readonly opts: CompactorOptions = {},
  ) {
    this.compacted = readMeta(db, metaKeys.compactRevision);
    this.swept = readMeta(db, metaKeys.compactSwept);
    this.chunkSize = opts.chunkSize ?? 5000;
    this.usedAfterSweep = this.usedPages();
    this.deleteSuperseded = db.prepare(
      'DELETE FROM kv WHERE id IN (SELECT prev_revision FROM kv WHERE id > @lo AND id <= @hi AND prev_revision > 0)',
    );
    this.deleteTombstones = db.prepare('DELETE FROM kv WHERE deleted = 1 AND id >= @lo AND id <= @hi AND id < @rev');
  }

  get compactedRevision(): number {
    return this.compacted;
  }

  /**
   * Marks `revision` compacted (reads below it fail from now on) and sweeps
   * the rows it made obsolete. Compactions run one at a time, in call order.
   */
  compact(revision: number): Promise<void> {
    if (revision <= this.compacted) return this.running;
    // persisted first: were the write to fail, reads below `revision` must still be served (and after a restart)
    this.transaction(() => writeMeta(this.db, metaKeys.compactRevision, revision));
    this.compacted = revision;
    // A failed sweep must not wedge later compactions; the next one resumes from the swept mark.
    const sweep = this.running.catch(() => undefined).then(() => this.sweep(revision));
    this.running = sweep;
    return sweep;
  }

  /** Resolves when every started compaction has finished. */
  idle(): Promise<void> {
    return this.running;
  }

  private async sweep(revision: number): Promise<void> {
    const usedBeforeSweep = this.usedPages();
    while (this.swept < revision) {
      const lo = this.swept;
      const hi = Math.min(revision, lo + this.chunkSize);
      this.transaction(() => {
        this.deleteSuperseded.run({ lo, hi });
        // lo itself is included: a tombstone at the previous compaction revision was kept then.
        this.deleteTombstones.run({ lo, hi, rev: revision });
        writeMeta(this.db, metaKeys.compactSwept, hi);
      });
      this.swept = hi;
      if (this.swept < revision) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.releaseFreePages(usedBeforeSweep);
  }

  private transaction(fn: () => void): void {
    this.db.transaction(fn).immediate();
    this.opts.onTransaction?.();
  }

  private usedPages(): number {
    return (this.db.pragma('page_count', { simple: true }) as number) - (this.db.pragma('freelist_count', { simple: true }) as number);
  }

  /**
   * Freed pages are reused by later writes, so under steady churn the file
   * stops growing once it holds one compaction interval of history. Keep as
   * many free pages as the last interval consumed and hand only the surplus
   * (e.g. after a mass delete) back to the file system.
   */
  private releaseFreePages(usedBeforeSweep: number): void {
    const consumed = Math.max(0, usedBeforeSweep - this.usedAfterSweep);
    this.usedAfterSweep = this.usedPages();
    const free = this.db.pragma('freelist_count', { simple: true }) as number;
    const surplus = free - consumed;
    if (surplus > 256) this.db.pragma(`incremental_vacuum(${surplus})`);
  }
}
