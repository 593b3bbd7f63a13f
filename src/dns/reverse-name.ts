import { isIP } from 'node:net';

/**
 * The IP a reverse name stands for (`5.0.96.10.in-addr.arpa` → `10.96.0.5`,
 * 32 nibbles under `ip6.arpa` → an IPv6 address in Node's compressed form),
 * or undefined for a partial or malformed one.
 */
export function ipFromReverseName(name: string): string | undefined {
  const lower = name.toLowerCase().replace(/\.$/, '');
  if (lower.endsWith('.in-addr.arpa')) {
    const labels = lower.slice(0, -'.in-addr.arpa'.length).split('.');
    if (labels.length !== 4 || !labels.every((l) => /^\d{1,3}$/.test(l) && Number(l) <= 255)) return undefined;
    return labels.map(Number).reverse().join('.');
  }
  if (lower.endsWith('.ip6.arpa')) {
    const nibbles = lower.slice(0, -'.ip6.arpa'.length).split('.');
    if (nibbles.length !== 32 || !nibbles.every((n) => /^[0-9a-f]$/.test(n))) return undefined;
    const hex = nibbles.reverse().join('');
    return canonicalIPv6(hex.match(/.{4}/g)!.join(':'));
  }
  return undefined;
}

/** Whether a name is under a reverse zone. */
export function isReverseName(name: string): boolean {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return lower === 'in-addr.arpa' || lower.endsWith('.in-addr.arpa') || lower === 'ip6.arpa' || lower.endsWith('.ip6.arpa');
}

/** `10-244-0-5` → `10.244.0.5`; `fd00--5` → `fd00::5`; undefined when it is no IP. */
export function ipFromDashed(label: string): string | undefined {
  const v4 = label.replace(/-/g, '.');
  if (isIP(v4) === 4) return v4;
  const v6 = label.replace(/-/g, ':');
  return isIP(v6) === 6 ? canonicalIPv6(v6) : undefined;
}

/** An IPv6 address in the form Kubernetes and Node print (`fd00::1`). */
export function canonicalIPv6(ip: string): string {
  return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
}
