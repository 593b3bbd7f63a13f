/** etcd key ranges are byte ranges: [key, rangeEnd). */

const encoder = new TextEncoder();

/** The range end covering every key that starts with `prefix` (etcd's prefix convention); "\0" covers all keys. */
export function prefixRangeEnd(prefix: string): Uint8Array {
  const bytes = encoder.encode(prefix);
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i]! < 0xff) {
      const end = bytes.slice(0, i + 1);
      end[i]! += 1;
      return end;
    }
  }
  return new Uint8Array([0]);
}

/** The smallest key after `key`: the key plus a zero byte. */
export function keyAfter(key: string): Uint8Array {
  const bytes = encoder.encode(key);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}
