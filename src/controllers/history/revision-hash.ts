/** Upstream's rand.SafeEncodeString alphabet: no vowels, no look-alike digits, so hashes never spell words. */
const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** 32-bit FNV-1a over the UTF-8 bytes of `text`. */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Maps each character to the safe alphabet by its code, as rand.SafeEncodeString does. */
export function safeEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += SAFE_ALPHANUMS[text.charCodeAt(i) % SAFE_ALPHANUMS.length];
  return out;
}

/** JSON with object keys sorted, so equal data always hashes equally whatever the key order. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => stableStringify(v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A ControllerRevision hash: FNV-1a of the revision data, then of the
 * collision count when one is set (bumped when a hash clashes with a
 * revision holding other data), rendered as its decimal digits safe-encoded.
 */
export function revisionHash(data: unknown, collisionCount?: number): string {
  let text = stableStringify(data);
  if (collisionCount !== undefined && collisionCount !== 0) text += String(collisionCount);
  return safeEncode(String(fnv32a(text)));
}
