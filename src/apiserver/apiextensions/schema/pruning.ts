import { additionalSchema, isObject, itemsSchema, type Schema } from './json-schema.js';

/**
 * Drops fields the structural schema does not declare, as upstream's
 * pruning, and returns their paths (`.spec.foo`, `.spec.list[0].bar`) for
 * fieldValidation Strict/Warn. `x-kubernetes-preserve-unknown-fields` keeps
 * a subtree's unknown fields; apiVersion, kind and metadata are kept at the
 * root and in embedded resources.
 */
export function prune(obj: Record<string, unknown>, s: Schema): string[] {
  const pruned: string[] = [];
  pruneObject(obj, s, '', true, pruned);
  return pruned;
}

const TYPE_META = ['apiVersion', 'kind', 'metadata'];

function pruneValue(v: unknown, s: Schema | undefined, path: string, pruned: string[]): void {
  if (!s) return;
  if (Array.isArray(v)) {
    const items = itemsSchema(s);
    if (items) v.forEach((item, i) => pruneValue(item, items, `${path}[${i}]`, pruned));
    else if (!s['x-kubernetes-preserve-unknown-fields']) v.forEach((item, i) => pruneValue(item, {}, `${path}[${i}]`, pruned));
    return;
  }
  if (isObject(v)) pruneObject(v, s, path, s['x-kubernetes-embedded-resource'] === true, pruned);
}

function pruneObject(v: Record<string, unknown>, s: Schema, path: string, keepTypeMeta: boolean, pruned: string[]): void {
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true || s.additionalProperties === true;
  const extra = additionalSchema(s);
  for (const k of Object.keys(v)) {
    // apiVersion, kind and metadata follow ObjectMeta's own rules, not the schema
    if (keepTypeMeta && TYPE_META.includes(k)) continue;
    const ps = s.properties?.[k];
    const p = `${path}.${k}`;
    if (ps) pruneValue(v[k], ps, p, pruned);
    else if (extra) pruneValue(v[k], extra, p, pruned);
    else if (!preserve) {
      delete v[k];
      pruned.push(p);
    }
  }
}
