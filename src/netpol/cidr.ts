import { isIPv4 } from 'node:net';

/** An IPv4 network: its first address as an unsigned 32-bit number, and its prefix length. */
export interface Ipv4Net {
  base: number;
  bits: number;
}

function toNumber(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function toDotted(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

const size = (bits: number): number => 2 ** (32 - bits);

/** An IPv4 CIDR (or a bare address as /32), normalised to its network address; undefined for IPv6 or garbage. */
export function parseIpv4Cidr(text: string): Ipv4Net | undefined {
  const [ip, len, ...rest] = text.split('/');
  if (rest.length > 0 || !isIPv4(ip)) return undefined;
  const bits = len === undefined ? 32 : Number(len);
  if (!Number.isInteger(bits) || bits < 0 || bits > 32 || (len !== undefined && !/^\d+$/.test(len))) return undefined;
  const n = toNumber(ip);
  return { base: n - (n % size(bits)), bits };
}

export function formatCidr(net: Ipv4Net): string {
  return `${toDotted(net.base)}/${net.bits}`;
}

/** Whether `ip` (IPv4) lies in `net`. */
export function cidrContains(net: Ipv4Net, ip: string): boolean {
  if (!isIPv4(ip)) return false;
  const n = toNumber(ip);
  return n >= net.base && n < net.base + size(net.bits);
}

function overlaps(a: Ipv4Net, b: Ipv4Net): boolean {
  return a.base < b.base + size(b.bits) && b.base < a.base + size(a.bits);
}

/**
 * `net` without the `except` networks, as the fewest CIDRs that cover the
 * rest (an ipBlock's `except`, which iptables cannot say in one match):
 * split in halves until each half is either clear of every exception or
 * wholly inside one.
 */
export function subtractCidrs(net: Ipv4Net, except: readonly Ipv4Net[]): Ipv4Net[] {
  const hits = except.filter((e) => overlaps(net, e));
  if (hits.length === 0) return [net];
  if (hits.some((e) => e.bits <= net.bits)) return [];
  const half = size(net.bits + 1);
  return [
    ...subtractCidrs({ base: net.base, bits: net.bits + 1 }, hits),
    ...subtractCidrs({ base: net.base + half, bits: net.bits + 1 }, hits),
  ];
}
