import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { Quantity } from '../../../machinery/quantity.js';

/**
 * CEL's ordering of comparable values (ints, uints, doubles across types,
 * strings, bools, bytes, timestamps, durations, quantities), as the lists
 * library's min/max/isSorted need it. Throws for values that do not compare.
 */
export function compareCel(a: unknown, b: unknown): number {
  if (isNumeric(a) && isNumeric(b)) {
    const x = a instanceof UnsignedInt ? a.value : a;
    const y = b instanceof UnsignedInt ? b.value : b;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Quantity && b instanceof Quantity) return a.cmp(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  if (hasValueOf(a) && hasValueOf(b)) return Math.sign(a.valueOf() - b.valueOf());
  throw new TypeError(`no such overload: comparing ${typeName(a)} and ${typeName(b)}`);
}

export function isNumeric(v: unknown): v is number | bigint | UnsignedInt {
  return typeof v === 'number' || typeof v === 'bigint' || v instanceof UnsignedInt;
}

function hasValueOf(v: unknown): v is { valueOf(): number } {
  return typeof v === 'object' && v !== null && typeof (v as { valueOf: unknown }).valueOf === 'function' && typeof v.valueOf() === 'number';
}

function typeName(v: unknown): string {
  if (v === null) return 'null_type';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object') return v.constructor?.name ?? 'map';
  return typeof v;
}
