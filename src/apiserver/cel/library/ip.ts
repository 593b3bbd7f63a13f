import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';

/** An IP address as a 32- or 128-bit number. */
export class IP {
  constructor(
    readonly family: 4 | 6,
    readonly value: bigint,
  ) {}

  get bits(): number {
    return this.family === 4 ? 32 : 128;
  }

  toString(): string {
    return this.family === 4 ? formatV4(this.value) : formatV6(this.value);
  }
}

/** A network: an address (as written) and a prefix length. */
export class CIDR {
  constructor(
    readonly ip: IP,
    readonly prefix: number,
  ) {}

  masked(): CIDR {
    const hostBits = BigInt(this.ip.bits - this.prefix);
    return new CIDR(new IP(this.ip.family, (this.ip.value >> hostBits) << hostBits), this.prefix);
  }

  contains(ip: IP): boolean {
    if (ip.family !== this.ip.family) return false;
    const hostBits = BigInt(this.ip.bits - this.prefix);
    return ip.value >> hostBits === this.ip.value >> hostBits;
  }

  toString(): string {
    return `${this.ip}/${this.prefix}`;
  }
}

export function parseIP(s: string): IP | undefined {
  if (s.includes('%')) return undefined; // zones are refused upstream
  if (s.includes(':')) {
    const v = parseV6(s);
    // IPv4-mapped IPv6 addresses are refused too
    return v === undefined || v >> 32n === 0xffffn ? undefined : new IP(6, v);
  }
  const v = parseV4(s);
  return v === undefined ? undefined : new IP(4, v);
}

export function parseCIDR(s: string): CIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(bits) || (bits.length > 1 && bits.startsWith('0'))) return undefined;
  const prefix = Number(bits);
  return prefix > ip.bits ? undefined : new CIDR(ip, prefix);
}

function parseV4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    // leading zeros are ambiguous (octal in some parsers) and refused
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith('0')) || Number(p) > 255) return undefined;
    v = (v << 8n) | BigInt(p);
  }
  return v;
}

function parseV6(s: string): bigint | undefined {
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string): bigint[] | undefined => {
    if (h === '') return [];
    const out: bigint[] = [];
    const parts = h.split(':');
    for (const [i, p] of parts.entries()) {
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseV4(p);
        if (v4 === undefined) return undefined;
        out.push(v4 >> 16n, v4 & 0xffffn);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(BigInt(`0x${p}`));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<bigint>(halves.length === 2 ? missing : 0).fill(0n), ...tail];
  return all.reduce((acc, g) => (acc << 16n) | g, 0n);
}

function formatV4(v: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
}

/** RFC 5952 text: lower case, the longest run of zero groups (length ≥ 2) as `::`. */
function formatV6(v: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((v >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

function ipOrThrow(s: string): IP {
  const ip = parseIP(s);
  if (!ip) throw new EvaluationError(`IP Address "${s}" parse error during conversion from string: ParseAddr("${s}"): unable to parse IP`);
  return ip;
}

function cidrOrThrow(s: string): CIDR {
  const c = parseCIDR(s);
  if (!c) throw new EvaluationError(`network address parse error during conversion from string: netip.ParsePrefix("${s}"): invalid prefix`);
  return c;
}

const inRange = (ip: IP, net: string) => (parseCIDR(net) as CIDR).contains(ip);

/**
 * Kubernetes' IP and CIDR libraries (library/ip.go, library/cidr.go):
 * `ip(s)`, `isIP(s)`, `cidr(s)`, `isCIDR(s)` and their methods.
 */
export function registerIP(env: Environment): void {
  env
    .registerType('net.IP', IP)
    .registerType('net.CIDR', CIDR)
    .registerFunction('ip(string): net.IP', ipOrThrow)
    .registerFunction('isIP(string): bool', (s: string) => parseIP(s) !== undefined)
    .registerFunction('string(net.IP): string', (ip: IP) => ip.toString())
    .registerFunction('net.IP.family(): int', (ip: IP) => BigInt(ip.family))
    .registerFunction('net.IP.isUnspecified(): bool', (ip: IP) => ip.value === 0n)
    .registerFunction('net.IP.isLoopback(): bool', (ip: IP) => (ip.family === 4 ? inRange(ip, '127.0.0.0/8') : ip.value === 1n))
    .registerFunction('net.IP.isLinkLocalMulticast(): bool', (ip: IP) => inRange(ip, ip.family === 4 ? '224.0.0.0/24' : 'ff02::/16'))
    .registerFunction('net.IP.isLinkLocalUnicast(): bool', (ip: IP) => inRange(ip, ip.family === 4 ? '169.254.0.0/16' : 'fe80::/10'))
    .registerFunction('net.IP.isGlobalUnicast(): bool', (ip: IP) => isGlobalUnicast(ip))
    .registerOperator('net.IP == net.IP', (a: IP, b: IP) => a.family === b.family && a.value === b.value)
    .registerFunction('cidr(string): net.CIDR', cidrOrThrow)
    .registerFunction('isCIDR(string): bool', (s: string) => parseCIDR(s) !== undefined)
    .registerFunction('string(net.CIDR): string', (c: CIDR) => c.toString())
    .registerFunction('net.CIDR.containsIP(net.IP): bool', (c: CIDR, ip: IP) => c.contains(ip))
    .registerFunction('net.CIDR.containsIP(string): bool', (c: CIDR, s: string) => c.contains(ipOrThrow(s)))
    .registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', (c: CIDR, o: CIDR) => o.prefix >= c.prefix && c.contains(o.ip))
    .registerFunction('net.CIDR.containsCIDR(string): bool', (c: CIDR, s: string) => {
      const o = cidrOrThrow(s);
      return o.prefix >= c.prefix && c.contains(o.ip);
    })
    .registerFunction('net.CIDR.ip(): net.IP', (c: CIDR) => c.ip)
    .registerFunction('net.CIDR.masked(): net.CIDR', (c: CIDR) => c.masked())
    .registerFunction('net.CIDR.prefixLength(): int', (c: CIDR) => BigInt(c.prefix))
    .registerOperator('net.CIDR == net.CIDR', (a: CIDR, b: CIDR) => a.prefix === b.prefix && a.ip.family === b.ip.family && a.ip.value === b.ip.value);
}

function isGlobalUnicast(ip: IP): boolean {
  if (ip.value === 0n) return false;
  if (ip.family === 4) {
    return ip.value !== 0xffffffffn && !['127.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4'].some((n) => inRange(ip, n));
  }
  return !['::1/128', 'fe80::/10', 'ff00::/8'].some((n) => inRange(ip, n));
}
