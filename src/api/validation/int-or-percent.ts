import { invalid, validateNonnegativeField, type ErrorList } from './errors.js';
import { isValidPercent } from './name.js';

/** Upstream's ValidatePositiveIntOrPercent (apps validation). */
export function validatePositiveIntOrPercent(value: unknown, path: string): ErrorList {
  if (typeof value === 'string') return isValidPercent(value).map((m) => invalid(path, value, m));
  if (typeof value === 'number') return validateNonnegativeField(value, path);
  return [invalid(path, value ?? null, "must be an integer or percentage (e.g '5%')")];
}

/** The integer or percentage number, as upstream's getIntOrPercentValue. */
export function intOrPercentValue(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^[0-9]+%$/.test(value)) return Number(value.slice(0, -1));
  return 0;
}

export function isNotMoreThan100Percent(value: unknown, path: string): ErrorList {
  if (typeof value !== 'string' || !/^[0-9]+%$/.test(value) || Number(value.slice(0, -1)) <= 100) return [];
  return [invalid(path, value, 'must not be greater than 100%')];
}
