import Database from 'better-sqlite3';
import { UnavailableError } from '../errors.js';

/**
 * The log table (kine's layout): id is the revision. The unique index on
 * (name, prev_revision) is the optimistic lock; the index on (name, id) serves
 * "latest row of each key at revision R" for gets, lists and counts. It also
 * carries `deleted` so that counting and skipping tombstones never touches
 * the table itself.
 */
const ddl = `
CREATE TABLE IF NOT EXISTS kv (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value BLOB,
  old_value BLOB
);
CREATE UNIQUE INDEX IF NOT EXISTS kv_name_prev_revision ON kv (name, prev_revision);
CREATE INDEX IF NOT EXISTS kv_name_id ON kv (name, id, deleted);
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Meta keys. */
export const metaKeys = {
  /** Reads and watches below this revision fail with CompactedError. */
  compactRevision: 'compact_revision',
  /** Rows up to this revision have been swept; the next compaction starts here. */
  compactSwept: 'compact_swept',
} as const;

/** Opens (creating when needed) a storage database with durable settings. */
export function openDatabase(path: string, busyTimeoutMs = 5000): Database.Database {
  const db = new Database(path);
  try {
    // A restarting owner may still be exiting: wait a little for its lock.
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // Only takes effect on a new file (before the first table); lets compaction hand pages back.
    db.pragma('auto_vacuum = INCREMENTAL');
    // One process owns the file (revisions and watch fan-out live in its memory); a second
    // opener fails instead of corrupting that. Set before WAL so no shared-memory file is used.
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    // FULL: every commit is fsynced before a write is acknowledged.
    db.pragma('synchronous = FULL');
    // A WAL file is reused after checkpoints but never shrinks without a limit.
    db.pragma('journal_size_limit = 67108864');
    db.exec(ddl);
    // In EXCLUSIVE mode the lock is kept from the first write transaction on; take it now.
    db.exec('BEGIN EXCLUSIVE; COMMIT');
    return db;
  } catch (err) {
    db.close();
    if (err instanceof Database.SqliteError && err.code === 'SQLITE_BUSY') {
      throw new UnavailableError(`${path} is in use by another process`, { cause: err });
    }
    throw err;
  }
}

/** The highest revision ever assigned (AUTOINCREMENT never reuses one, even after compaction). */
export function readLastRevision(db: Database.Database): number {
  const row = db.prepare<[], { seq: number }>(`SELECT seq FROM sqlite_sequence WHERE name = 'kv'`).get();
  return row?.seq ?? 0;
}

export function readMeta(db: Database.Database, key: string): number {
  const row = db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE key = ?').get(key);
  return row?.value ?? 0;
}

export function writeMeta(db: Database.Database, key: string, value: number): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}
