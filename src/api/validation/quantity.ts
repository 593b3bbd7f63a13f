import { invalid, type ErrorList } from './errors.js';

/**
 * A small local quantity reader for validation only (src/machinery owns the
 * real Quantity type; api may not import it). Values are approximate floats,
 * enough to order requests against limits.
 */
export const QUANTITY_FORMAT_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const SUFFIX: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The numeric value of a quantity, or undefined when it does not parse. */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^([+-]?)([0-9]+\.?[0-9]*|\.[0-9]+)(.*)$/.exec(value.trim());
  if (!m || value.trim() !== value || value === '') return undefined;
  const [, sign, digits, suffix] = m;
  let factor: number | undefined = SUFFIX[suffix];
  if (factor === undefined) {
    const exp = /^[eE]([+-]?[0-9]+)$/.exec(suffix);
    if (!exp) return undefined;
    factor = 10 ** Number(exp[1]);
  }
  const n = Number(digits) * factor;
  return sign === '-' ? -n : n;
}

/** Invalid(path, value, format message) when the quantity does not parse; negative ones are rejected too. */
export function validateNonnegativeQuantity(value: unknown, path: string): ErrorList {
  const n = parseQuantity(value);
  if (n === undefined) return [invalid(path, value, QUANTITY_FORMAT_MESSAGE)];
  return n < 0 ? [invalid(path, value, 'must be greater than or equal to 0')] : [];
}

export function validatePositiveQuantity(value: unknown, path: string): ErrorList {
  const n = parseQuantity(value);
  if (n === undefined) return [invalid(path, value, QUANTITY_FORMAT_MESSAGE)];
  return n <= 0 ? [invalid(path, value, 'must be greater than zero')] : [];
}
