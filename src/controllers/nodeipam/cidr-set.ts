/** A CIDR that is not IPv4 `a.b.c.d/n`, or a mask size that does not fit the cluster CIDR. */
export class CidrError extends Error {
  override readonly name = 'CidrError';
}

/** The cluster CIDR has no free subnet left (upstream's ErrCIDRRangeNoCIDRsRemaining). */
export class CidrRangeFullError extends Error {
  override readonly name = 'CidrRangeFullError';
}

function parseIPv4(ip: string): number {
  const parts = ip.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) throw new CidrError(`invalid IPv4 address ${JSON.stringify(ip)}`);
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

function formatIPv4(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

export function parseCidr(cidr: string): { base: number; bits: number } {
  const m = /^([^/]+)\/(\d{1,2})$/.exec(cidr);
  if (!m || Number(m[2]) > 32) throw new CidrError(`invalid CIDR ${JSON.stringify(cidr)}, want a.b.c.d/n`);
  const bits = Number(m[2]);
  const size = 2 ** (32 - bits);
  const base = Math.floor(parseIPv4(m[1]!) / size) * size;
  return { base, bits };
}

/**
 * Upstream's cidrset: the cluster CIDR cut into equal subnets of
 * `maskSize` bits, handed out in order (continuing after the last one
 * handed out, so a released subnet is not reused at once) and never twice.
 */
export class CidrSet {
  private readonly base: number;
  private readonly subnetSize: number;
  private readonly count: number;
  private readonly used = new Set<number>();
  private next = 0;

  constructor(readonly clusterCidr: string, readonly maskSize: number) {
    const { base, bits } = parseCidr(clusterCidr);
    if (!Number.isInteger(maskSize) || maskSize < bits || maskSize > 32) throw new CidrError(`--node-cidr-mask-size ${maskSize} must be between the cluster CIDR's prefix (${bits}) and 32`);
    if (maskSize - bits > 16) throw new CidrError(`--node-cidr-mask-size ${maskSize} is more than 16 bits larger than the cluster CIDR's prefix (${bits})`);
    this.base = base;
    this.subnetSize = 2 ** (32 - maskSize);
    this.count = 2 ** (maskSize - bits);
  }

  /** Free subnets left. */
  get free(): number {
    return this.count - this.used.size;
  }

  /** The index of `cidr` in this set, or undefined when it is not one of its subnets. */
  private indexOf(cidr: string): number | undefined {
    const { base, bits } = parseCidr(cidr);
    if (bits !== this.maskSize) return undefined;
    const i = (base - this.base) / this.subnetSize;
    return Number.isInteger(i) && i >= 0 && i < this.count ? i : undefined;
  }

  /** Marks a subnet some node already has as taken; false when it is not one of this set's. */
  occupy(cidr: string): boolean {
    const i = this.indexOf(cidr);
    if (i === undefined) return false;
    this.used.add(i);
    return true;
  }

  isOccupied(cidr: string): boolean {
    const i = this.indexOf(cidr);
    return i !== undefined && this.used.has(i);
  }

  allocateNext(): string {
    for (let k = 0; k < this.count; k++) {
      const i = (this.next + k) % this.count;
      if (this.used.has(i)) continue;
      this.used.add(i);
      this.next = (i + 1) % this.count;
      return `${formatIPv4(this.base + i * this.subnetSize)}/${this.maskSize}`;
    }
    throw new CidrRangeFullError(`no remaining CIDRs in ${this.clusterCidr} of size /${this.maskSize}`);
  }

  release(cidr: string): void {
    const i = this.indexOf(cidr);
    if (i !== undefined) this.used.delete(i);
  }
}
