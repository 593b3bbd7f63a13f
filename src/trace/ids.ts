import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const bytes = Buffer.alloc(POOL_BYTES);
let pool = '';
let offset = 0;

/** `n` random bytes in hex, cut from a pool filled 4 KiB at a time (one crypto call per ~250 spans). */
function randomHex(n: number): string {
  const chars = 2 * n;
  if (offset + chars > pool.length) {
    randomFillSync(bytes);
    pool = bytes.toString('hex');
    offset = 0;
  }
  const id = pool.slice(offset, offset + chars);
  offset += chars;
  return id;
}

const ZERO_SPAN = '0'.repeat(16);
const ZERO_TRACE = '0'.repeat(32);

/** A random, non-zero 8-byte span id in hex (W3C trace context). */
export function newSpanId(): string {
  for (;;) {
    const id = randomHex(8);
    if (id !== ZERO_SPAN) return id;
  }
}

/** A random, non-zero 16-byte trace id in hex (W3C trace context). */
export function newTraceId(): string {
  for (;;) {
    const id = randomHex(16);
    if (id !== ZERO_TRACE) return id;
  }
}
