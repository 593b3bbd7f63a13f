import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { Quantity } from '../../../machinery/quantity.js';

/** CEL equality over converted values: numbers compare across int/uint/double, lists and maps deeply. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const x = a instanceof UnsignedInt ? a.value : a;
  const y = b instanceof UnsignedInt ? b.value : b;
  if ((typeof x === 'bigint' || typeof x === 'number') && (typeof y === 'bigint' || typeof y === 'number')) return x == y;
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
  if (x instanceof Quantity && y instanceof Quantity) return x.equal(y);
  if (x instanceof Date && y instanceof Date) return x.getTime() === y.getTime();
  if (Array.isArray(x) || Array.isArray(y)) {
    return Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.every((v, i) => celEquals(v, y[i]));
  }
  if (x instanceof Map || y instanceof Map) return false;
  const xo = x as Record<string, unknown>;
  const yo = y as Record<string, unknown>;
  const xk = Object.keys(xo);
  return xk.length === Object.keys(yo).length && xk.every((k) => k in yo && celEquals(xo[k], yo[k]));
}
