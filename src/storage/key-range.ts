/**
 * Key ranges in SQLite's BINARY collation, which orders TEXT by its UTF-8
 * bytes, i.e. by code point (not by UTF-16 code unit like JavaScript's `<`).
 */

/**
 * The smallest string greater than every string that starts with `prefix`,
 * or undefined when there is none (the empty prefix covers every key).
 */
export function prefixEnd(prefix: string): string | undefined {
  const codePoints = Array.from(prefix);
  while (codePoints.length > 0) {
    const last = codePoints.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      let next = last + 1;
      // Surrogates cannot be encoded in UTF-8; the next encodable code point follows them.
      if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
      return codePoints.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** Compares two keys the way SQLite does (by UTF-8 bytes). */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The lower bound of a scan: keys >= `key` when inclusive, > `key` otherwise. */
export interface LowerBound {
  key: string;
  inclusive: boolean;
}

/** Where a scan of `prefix` resumes: after `startAfter` when it lies inside or past the prefix. */
export function lowerBound(prefix: string, startAfter?: string): LowerBound {
  if (startAfter !== undefined && startAfter !== '' && compareKeys(startAfter, prefix) >= 0) {
    return { key: startAfter, inclusive: false };
  }
  return { key: prefix, inclusive: true };
}
