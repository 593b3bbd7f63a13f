import type { KeyValue, WatchEvent } from '../storage.js';

/**
 * One row of the kine-style log table. Every write appends a row whose id is
 * its revision; `prev_revision` links to the key's previous row (0 for the
 * first one), so the unique (name, prev_revision) index rejects two writes
 * racing from the same base.
 */
export interface LogRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  /** The written value; null for delete tombstones. */
  value: Buffer | null;
  /** The value this row replaced; null for creates. */
  old_value: Buffer | null;
}

const empty = new Uint8Array(0);

/** The key-value a live (non-tombstone) row represents. */
export function rowKeyValue(row: Pick<LogRow, 'id' | 'name' | 'create_revision' | 'value'>): KeyValue {
  return { key: row.name, value: row.value ?? empty, createRevision: row.create_revision, modRevision: row.id };
}

/** The value a row replaced, as it was at its own revision. */
function previousKeyValue(row: LogRow): KeyValue {
  return { key: row.name, value: row.old_value ?? empty, createRevision: row.create_revision, modRevision: row.prev_revision };
}

/** The watch event a row records. */
export function rowEvent(row: LogRow): WatchEvent {
  if (row.deleted) {
    const prevKv = previousKeyValue(row);
    return { type: 'DELETE', kv: { ...prevKv, modRevision: row.id }, prevKv };
  }
  if (row.created) return { type: 'PUT', kv: rowKeyValue(row) };
  return { type: 'PUT', kv: rowKeyValue(row), prevKv: previousKeyValue(row) };
}
