/**
 * JSON with object keys sorted and undefined dropped, for comparing what we
 * want with what the server holds. Unlike semanticEqual it keeps `false`,
 * which matters for endpoint conditions (absent ready means ready).
 */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return value;
  });
}
