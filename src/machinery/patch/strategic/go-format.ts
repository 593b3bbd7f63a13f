import { isJsonObject } from '../json-value.js';

/**
 * Formats a JSON value the way Go's `%v` prints a decoded
 * `interface{}`, so our error messages read like upstream's:
 * `map[image:nginx name:web]`, `[a b]`, `80`, `1e+06`.
 */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goFloat(v);
  return String(v);
}

/** Go's `%v` of a float64: shortest digits, exponent form below 1e-4 or from 1e+06 on. */
function goFloat(n: number): string {
  if (n === 0 || !Number.isFinite(n)) return String(n);
  const [mantissa, exp] = n.toExponential().split('e');
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return String(n);
}

/** The Go type name a decoded JSON value has, as upstream prints it in `expected a X, but received a Y`. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (isJsonObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return 'float64';
  return typeof v;
}
