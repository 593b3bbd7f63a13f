import { isIPv4 } from 'node:net';
import { canonicalIPv6 } from '../dns/reverse-name.js';

/**
 * The cluster DNS Service's address: by convention the tenth of the service
 * range (`10.96.0.0/12` → `10.96.0.10`), as kubeadm gives CoreDNS.
 */
export function tenthAddress(cidr: string): string {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  if (isIPv4(base) && bits >= 0 && bits <= 28) {
    const n = base.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
    const network = bits === 0 ? 0 : Math.floor(n / 2 ** (32 - bits)) * 2 ** (32 - bits);
    const v = network + 10;
    return [24, 16, 8, 0].map((s) => Math.floor(v / 2 ** s) % 256).join('.');
  }
  const expanded = canonicalIPv6(base);
  const groups = expandIPv6(expanded);
  let v = groups.reduce((acc, g) => (acc << 16n) + BigInt(parseInt(g, 16)), 0n);
  const hostBits = BigInt(128 - bits);
  v = ((v >> hostBits) << hostBits) + 10n;
  const hex = v.toString(16).padStart(32, '0');
  return canonicalIPv6(hex.match(/.{4}/g)!.join(':'));
}

function expandIPv6(ip: string): string[] {
  const [head, tail] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  return tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
}
