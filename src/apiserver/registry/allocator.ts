import type { Storage } from '../../storage/storage.js';

/**
 * Allocates unique values (cluster IPs, node ports) with one storage key per
 * value: create-if-absent is the lock, so two API servers never hand out the
 * same value.
 */
export class KeyAllocator {
  constructor(
    private readonly storage: Storage,
    private readonly root: string,
    private readonly size: number,
    private readonly valueAt: (offset: number) => string,
  ) {}

  /** Claims a specific value; false when taken. */
  async claim(value: string, owner: string): Promise<boolean> {
    const res = await this.storage.create(this.root + value, Buffer.from(owner));
    return res.succeeded;
  }

  /** Claims a random free value, scanning on from a random start. */
  async allocate(owner: string): Promise<string | undefined> {
    const start = Math.floor(Math.random() * this.size);
    for (let i = 0; i < this.size; i++) {
      const value = this.valueAt((start + i) % this.size);
      if (await this.claim(value, owner)) return value;
    }
    return undefined;
  }

  async release(value: string): Promise<void> {
    await this.storage.delete(this.root + value);
  }
}

/** Parses `10.96.0.0/12` into an allocator over its usable addresses (network and broadcast excluded, the first kept for the `kubernetes` service). */
export function ipRangeAllocator(storage: Storage, cidr: string): { allocator: KeyAllocator; contains(ip: string): boolean; first: string } {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  const baseNum = ipToNumber(base);
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  const network = (baseNum & mask) >>> 0;
  const size = Math.min(2 ** (32 - bits) - 2, 1 << 20);
  const allocator = new KeyAllocator(storage, '/registry/ranges/serviceips/', size, (offset) => numberToIp(network + 1 + offset));
  return {
    allocator,
    contains: (ip) => {
      const n = ipToNumber(ip);
      return !Number.isNaN(n) && ((n & mask) >>> 0) === network && n !== network && n !== ((network | ~mask) >>> 0);
    },
    first: numberToIp(network + 1),
  };
}

function ipToNumber(ip: string): number {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return NaN;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

function numberToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}
