/**
 * Deep equality of JSON values that ignores key order and treats absent,
 * null, 0, '' and empty arrays/objects alike, as the API server may omit
 * such fields (omitempty): a status we computed equals the one it returns.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return normalize(a) === normalize(b);
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === 0 || v === '' || v === false || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);
}

function normalize(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(normalize).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .map(([k, x]): [string, string] => [k, normalize(x)])
      .filter(([, x]) => x !== '' && x !== '{}' && x !== '[]' && x !== 'null' && x !== '0' && x !== 'false' && x !== '""');
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => `${JSON.stringify(k)}:${x}`)
      .join(',')}}`;
  }
  return isEmpty(v) ? '' : JSON.stringify(v);
}
