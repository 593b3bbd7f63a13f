import type Database from 'better-sqlite3';
import type { WatchEvent } from '../storage.js';
import type { LogRow } from './log-row.js';
import { rowEvent } from './log-row.js';
import { prefixEnd } from '../key-range.js';

interface HistoryParams {
  from: number;
  to: number;
  lo: string;
  hi?: string;
  limit: number;
}

/** Reads past events under a prefix from the log, in revision order (for watch replay). */
export class HistoryQuery {
  private readonly bounded: Database.Statement<[HistoryParams], LogRow>;
  private readonly unbounded: Database.Statement<[HistoryParams], LogRow>;

  constructor(db: Database.Database) {
    const sql = (hi: string) => `SELECT * FROM kv
      WHERE id >= @from AND id <= @to AND name >= @lo ${hi}
      ORDER BY id LIMIT @limit`;
    this.bounded = db.prepare(sql('AND name < @hi'));
    this.unbounded = db.prepare(sql(''));
  }

  /** Events with from <= revision <= to under the prefix, at most `limit` of them. */
  read(prefix: string, from: number, to: number, limit: number): WatchEvent[] {
    const hi = prefixEnd(prefix);
    const params: HistoryParams = { from, to, lo: prefix, limit };
    if (hi !== undefined) params.hi = hi;
    const rows = (hi === undefined ? this.unbounded : this.bounded).all(params);
    return rows.map(rowEvent);
  }
}
