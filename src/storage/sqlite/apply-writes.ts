import type Database from 'better-sqlite3';
import type { DeleteResult, WriteResult } from '../storage.js';
import type { LogRow } from './log-row.js';
import { rowKeyValue } from './log-row.js';

export type WriteOp =
  | { type: 'create'; key: string; value: Uint8Array }
  | { type: 'update'; key: string; value: Uint8Array; expectedModRevision: number }
  | { type: 'delete'; key: string; expectedModRevision?: number };

export type WriteOpResult = WriteResult | DeleteResult;

export interface AppliedBatch {
  results: WriteOpResult[];
  /** Rows appended, in revision order (for watch fan-out). */
  rows: LogRow[];
  /** The revision after the batch. */
  revision: number;
}

type Latest = Pick<LogRow, 'id' | 'name' | 'deleted' | 'create_revision' | 'value'>;

/**
 * Evaluates guarded writes in order against the log and appends a row for
 * each that passes. Runs inside the batch's transaction; revisions are
 * assigned explicitly (lastRevision + 1, ...) so a result needs no read-back.
 */
export class WriteApplier {
  private readonly latest: Database.Statement<[string], Latest>;
  private readonly insert: Database.Statement<[LogRow]>;

  constructor(db: Database.Database) {
    this.latest = db.prepare(
      'SELECT id, name, deleted, create_revision, value FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1',
    );
    this.insert = db.prepare(
      `INSERT INTO kv (id, name, created, deleted, create_revision, prev_revision, value, old_value)
       VALUES (@id, @name, @created, @deleted, @create_revision, @prev_revision, @value, @old_value)`,
    );
  }

  apply(ops: readonly WriteOp[], lastRevision: number): AppliedBatch {
    let revision = lastRevision;
    const results: WriteOpResult[] = [];
    const rows: LogRow[] = [];
    for (const op of ops) {
      const latest = this.latest.get(op.key);
      const live = latest && !latest.deleted ? latest : undefined;
      const current = live ? rowKeyValue(live) : undefined;
      const failed = { succeeded: false as const, revision, ...(current ? { current } : {}) };
      if (op.type === 'create' ? live : !live || (op.expectedModRevision !== undefined && live.id !== op.expectedModRevision)) {
        results.push(failed);
        continue;
      }
      revision++;
      const row = this.rowFor(op, revision, latest, live);
      this.insert.run(row);
      rows.push(row);
      if (op.type === 'delete') results.push({ succeeded: true, revision, prev: current! });
      else results.push({ succeeded: true, revision, kv: rowKeyValue(row) });
    }
    return { results, rows, revision };
  }

  private rowFor(op: WriteOp, id: number, latest: Latest | undefined, live: Latest | undefined): LogRow {
    const base = { id, name: op.key, prev_revision: latest?.id ?? 0 };
    if (op.type === 'create') {
      return { ...base, created: 1, deleted: 0, create_revision: id, value: toBuffer(op.value), old_value: null };
    }
    const prior = { create_revision: live!.create_revision, old_value: live!.value };
    if (op.type === 'update') return { ...base, ...prior, created: 0, deleted: 0, value: toBuffer(op.value) };
    return { ...base, ...prior, created: 0, deleted: 1, value: null };
  }
}

/**
 * A private copy of the bytes: the row is handed to watchers and results, so
 * it must not change if the caller reuses its array. (Buffers bind as BLOBs.)
 * Its own allocation, not a slice of Node's shared 8 KiB pool: the watch
 * cache keeps it for as long as the object is unchanged, and a slice would
 * keep its whole slab (short-lived buffers' bytes included) alive with it
 * (scale bench, 15,000 pods: 23,893 slabs, 187 MiB, held by stored values).
 */
function toBuffer(value: Uint8Array): Buffer {
  const copy = Buffer.allocUnsafeSlow(value.byteLength);
  copy.set(value);
  return copy;
}
