import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { IntegrityError, UnavailableError } from '../errors.js';

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

/** Marks a file as skiff's (`PRAGMA application_id`, "skff"), so a foreign SQLite file is never taken for ours. */
export const APPLICATION_ID = 0x736b6666;
/** The layout version (`PRAGMA user_version`); a newer one is refused rather than misread. */
export const SCHEMA_VERSION = 1;

/**
 * Opens (creating when needed) a storage database with durable settings. An
 * existing file is checked first: it must be a skiff database that passes
 * SQLite's quick_check, or IntegrityError says why (never start empty over it).
 */
export function openDatabase(path: string, busyTimeoutMs = 5000): Database.Database {
  const existed = existsSync(path) && statSync(path).size > 0;
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (err) {
    throw integrityError(path, err) ?? err;
  }
  try {
    // A restarting owner may still be exiting: wait a little for its lock.
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    if (existed) verifyIntegrity(db, path);
    // Only takes effect on a new file (before the first table); lets compaction hand pages back.
    db.pragma('auto_vacuum = INCREMENTAL');
    // One process owns the file (revisions and watch fan-out live in its memory); a second
    // opener fails instead of corrupting that. Set before WAL so no shared-memory file is used.
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    // NORMAL: SQLite syncs the WAL only at checkpoints; every commit is synced by
    // DurableCommits (off the event loop) before a write is acknowledged or seen.
    db.pragma('synchronous = NORMAL');
    // A WAL file is reused after checkpoints but never shrinks without a limit.
    db.pragma('journal_size_limit = 67108864');
    db.exec(ddl);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    // In EXCLUSIVE mode the lock is kept from the first write transaction on; take it now.
    db.exec('BEGIN EXCLUSIVE; COMMIT');
    return db;
  } catch (err) {
    db.close();
    if (err instanceof Database.SqliteError && err.code === 'SQLITE_BUSY') {
      throw new UnavailableError(`${path} is in use by another process`, { cause: err });
    }
    throw integrityError(path, err) ?? err;
  }
}

const REFUSE = 'refusing to start over it; restore it from a backup or move it away';

/** SQLite's own verdict on a file that is no database or a damaged one. */
function integrityError(path: string, err: unknown): IntegrityError | undefined {
  if (err instanceof IntegrityError) return err;
  if (!(err instanceof Database.SqliteError)) return undefined;
  if (err.code === 'SQLITE_NOTADB') return new IntegrityError(`${path} is not a SQLite database (${err.message}); ${REFUSE}`, { cause: err });
  if (err.code.startsWith('SQLITE_CORRUPT')) return new IntegrityError(`${path} is corrupt (${err.message}); ${REFUSE}`, { cause: err });
  return undefined;
}

/** A skiff database in good order, or IntegrityError: foreign, newer or corrupt files are refused. */
function verifyIntegrity(db: Database.Database, path: string): void {
  const appId = db.pragma('application_id', { simple: true }) as number;
  if (appId !== 0 && appId !== APPLICATION_ID) {
    throw new IntegrityError(`${path} is not a skiff database (application_id 0x${(appId >>> 0).toString(16)}); ${REFUSE}`);
  }
  const tables = db.prepare<[], { name: string }>(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all().map((t) => t.name);
  // files from before the marker have the log table; anything else with tables is someone else's
  if (appId === 0 && tables.length > 0 && !(tables.includes('kv') && tables.includes('meta'))) {
    throw new IntegrityError(`${path} is not a skiff database (tables: ${tables.join(', ')}); ${REFUSE}`);
  }
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw new IntegrityError(`${path} was written by a newer skiff (schema version ${version}, this one reads ${SCHEMA_VERSION}); ${REFUSE}`);
  const problems = (db.pragma('quick_check(5)') as { quick_check: string }[]).flatMap((r) => r.quick_check.split('\n'));
  if (problems.length !== 1 || problems[0] !== 'ok') {
    throw new IntegrityError(`${path} is corrupt (PRAGMA quick_check: ${problems.join('; ')}); ${REFUSE}`);
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
