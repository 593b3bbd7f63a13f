import type Database from 'better-sqlite3';
import type { KeyValue } from '../storage.js';
import type { LogRow } from './log-row.js';
import { rowKeyValue } from './log-row.js';
import { lowerBound, prefixEnd } from '../key-range.js';

type ListRow = Pick<LogRow, 'id' | 'name' | 'create_revision' | 'value'>;

interface RangeParams {
  lo: string;
  hi?: string;
  rev: number;
  limit?: number;
}

export interface ListPage {
  kvs: KeyValue[];
  more: boolean;
  remaining: number;
}

/**
 * Reads the latest row of each key at a revision. The scan walks the
 * (name, id) index from the lower bound in key order and keeps a row only when
 * no newer row of the same key exists at or below the revision (one index
 * seek), so a page costs O(page size) and stops at the limit instead of
 * grouping the whole prefix first.
 */
export class ListQuery {
  private readonly statements = new Map<string, Database.Statement<[RangeParams]>>();
  private readonly getLatest: Database.Statement<[string, number], ListRow & { deleted: number }>;

  constructor(private readonly db: Database.Database) {
    this.getLatest = db.prepare(
      'SELECT id, name, deleted, create_revision, value FROM kv WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1',
    );
  }

  /** The key's latest row at or below the revision. */
  get(key: string, revision: number): KeyValue | undefined {
    const row = this.getLatest.get(key, revision);
    return row && !row.deleted ? rowKeyValue(row) : undefined;
  }

  list(prefix: string, revision: number, limit?: number, startAfter?: string): ListPage {
    const bound = lowerBound(prefix, startAfter);
    const hi = prefixEnd(prefix);
    const take = limit !== undefined && limit > 0 ? limit + 1 : undefined;
    const params: RangeParams = { lo: bound.key, rev: revision };
    if (hi !== undefined) params.hi = hi;
    if (take !== undefined) params.limit = take;
    const rows = this.statement('list', bound.inclusive, hi !== undefined, take !== undefined).all(params) as ListRow[];
    const more = take !== undefined && rows.length === take;
    if (more) rows.pop();
    const kvs = rows.map(rowKeyValue);
    let remaining = 0;
    if (more) {
      const after: RangeParams = { lo: kvs[kvs.length - 1]!.key, rev: revision };
      if (hi !== undefined) after.hi = hi;
      remaining = this.countRange(after, false);
    }
    return { kvs, more, remaining };
  }

  count(prefix: string, revision: number): number {
    const hi = prefixEnd(prefix);
    const params: RangeParams = { lo: prefix, rev: revision };
    if (hi !== undefined) params.hi = hi;
    return this.countRange(params, true);
  }

  private countRange(params: RangeParams, inclusive: boolean): number {
    const row = this.statement('count', inclusive, params.hi !== undefined, false).get(params) as { n: number };
    return row.n;
  }

  private statement(kind: 'list' | 'count', inclusive: boolean, bounded: boolean, limited: boolean): Database.Statement<[RangeParams]> {
    const cacheKey = `${kind}:${inclusive}:${bounded}:${limited}`;
    let stmt = this.statements.get(cacheKey);
    if (!stmt) {
      stmt = this.db.prepare(rangeSql(kind, inclusive, bounded, limited));
      this.statements.set(cacheKey, stmt);
    }
    return stmt;
  }
}

function rangeSql(kind: 'list' | 'count', inclusive: boolean, bounded: boolean, limited: boolean): string {
  const columns = kind === 'list' ? 'k.id, k.name, k.create_revision, k.value' : 'COUNT(*) AS n';
  return `SELECT ${columns} FROM kv AS k INDEXED BY kv_name_id
    WHERE k.name ${inclusive ? '>=' : '>'} @lo ${bounded ? 'AND k.name < @hi' : ''}
      AND k.id <= @rev AND k.deleted = 0
      AND NOT EXISTS (
        SELECT 1 FROM kv AS n INDEXED BY kv_name_id
        WHERE n.name = k.name AND n.id > k.id AND n.id <= @rev)
    ${kind === 'list' ? 'ORDER BY k.name' : ''} ${limited ? 'LIMIT @limit' : ''}`;
}
