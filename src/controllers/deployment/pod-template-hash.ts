import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';

export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** Upstream's rand.SafeEncodeString alphabet: no vowels (no words), no look-alikes (0/o, 1/l). */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** 32-bit FNV-1a. */
export function fnv32a(data: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const b of data) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function safeEncodeString(s: string): string {
  return [...Buffer.from(s)].map((b) => ALPHANUMS[b % ALPHANUMS.length]).join('');
}

/** JSON with object keys sorted, so equal templates print equally. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * The `pod-template-hash` of a template (upstream's controller.ComputeHash:
 * FNV-32a over the printed template and the collision count, its decimal
 * form safe-encoded). Deterministic, though not bit-identical to upstream's
 * since the template is printed as canonical JSON rather than by spew.
 */
export function computeHash(template: PodTemplateSpec | undefined, collisionCount?: number): string {
  let text = canonical(template ?? {});
  // A collision count changes the hash so that a new name can be tried.
  if (collisionCount !== undefined && collisionCount !== null) {
    const buf = Buffer.alloc(4);
    buf.writeUInt32LE(collisionCount >>> 0);
    text += buf.toString('latin1');
  }
  return safeEncodeString(String(fnv32a(Buffer.from(text, 'latin1'))));
}

/** The template without the hash label, for comparing a ReplicaSet's template to its Deployment's. */
function withoutHash(t: PodTemplateSpec | undefined): unknown {
  const copy = structuredClone(t ?? {}) as PodTemplateSpec;
  if (copy.metadata?.labels) {
    delete copy.metadata.labels[POD_TEMPLATE_HASH_LABEL];
    if (Object.keys(copy.metadata.labels).length === 0) delete copy.metadata.labels;
  }
  if (copy.metadata && Object.keys(copy.metadata).length === 0) delete copy.metadata;
  return copy;
}

/** Templates equal but for the pod-template-hash label (upstream's EqualIgnoreHash). */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return canonical(withoutHash(a)) === canonical(withoutHash(b));
}
