import { FIELD_DOCS } from './descriptions.js';
import { column, type TableConvertor } from './table-convertor.js';

/**
 * Upstream's table for resources without a printer: the name and the
 * creation time as an RFC 3339 string (a `date` typed column).
 */
export const defaultTable: TableConvertor = {
  columns: [
    column('Name', 'string', FIELD_DOCS['ObjectMeta.name'], { format: 'name' }),
    column('Created At', 'date', FIELD_DOCS['ObjectMeta.creationTimestamp']),
  ],
  cells: (obj) => [obj.metadata?.name ?? '', createdAt(obj.metadata?.creationTimestamp)],
};

/** RFC 3339 in UTC at second precision, as Go's `Time.UTC().Format(time.RFC3339)` writes it. */
function createdAt(ts: string | undefined): string {
  const ms = ts ? Date.parse(ts) : NaN;
  // An unset timestamp is Go's zero time upstream.
  if (Number.isNaN(ms)) return '0001-01-01T00:00:00Z';
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
