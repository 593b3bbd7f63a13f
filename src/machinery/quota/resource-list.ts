import { Quantity } from '../quantity.js';

/** A resource list with parsed quantities (upstream's corev1.ResourceList), in insertion order. */
export type Usage = Map<string, Quantity>;

/** Parses a ResourceList; a value that does not parse counts as zero (validation refuses those elsewhere). */
export function toUsage(list: Record<string, string | number> | undefined): Usage {
  const out: Usage = new Map();
  for (const [k, v] of Object.entries(list ?? {})) {
    try {
      out.set(k, Quantity.parse(String(v)));
    } catch {
      out.set(k, Quantity.fromValue(0));
    }
  }
  return out;
}

export function fromUsage(usage: Usage): Record<string, string> {
  return Object.fromEntries([...usage].map(([k, q]) => [k, q.toString()]));
}

export function addUsage(a: Usage, b: Usage): Usage {
  const out: Usage = new Map(a);
  for (const [k, q] of b) out.set(k, out.has(k) ? out.get(k)!.add(q) : q);
  return out;
}

/** a - b, each name at least zero (upstream's SubtractWithNonNegativeResult). */
export function subtractNonNegative(a: Usage, b: Usage): Usage {
  const out: Usage = new Map();
  for (const [k, q] of a) {
    const d = b.has(k) ? q.sub(b.get(k)!) : q;
    out.set(k, d.sign() < 0 ? Quantity.fromValue(0) : d);
  }
  return out;
}

/** Only the named resources (upstream's quota.Mask). */
export function maskUsage(usage: Usage, names: Iterable<string>): Usage {
  const keep = new Set(names);
  return new Map([...usage].filter(([k]) => keep.has(k)));
}

export function isZeroUsage(usage: Usage): boolean {
  return [...usage.values()].every((q) => q.isZero());
}

/** The names whose value in `a` is above `b` (only names in both count, as upstream's LessThanOrEqual). */
export function exceededNames(a: Usage, b: Usage): string[] {
  return [...a].filter(([k, q]) => b.has(k) && q.cmp(b.get(k)!) > 0).map(([k]) => k);
}

/** `cpu=1,pods=2`: sorted by name, as upstream's prettyPrint. */
export function prettyPrint(usage: Usage): string {
  return [...usage]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, q]) => `${k}=${q.toString()}`)
    .join(',');
}

export function usageEqual(a: Usage, b: Usage): boolean {
  if (a.size !== b.size) return false;
  for (const [k, q] of a) if (!b.has(k) || !q.equal(b.get(k)!)) return false;
  return true;
}
