import type { FieldError } from './field-error.js';

/**
 * Field paths and error constructors mirroring upstream's field.Path and
 * field.Required/Invalid/...: paths are plain strings so errors compare easily.
 */
export type ErrorList = FieldError[];

/** `spec` + `containers` → `spec.containers`; an empty root yields the bare child. */
export function child(path: string, ...names: string[]): string {
  return [path, ...names].filter((s) => s !== '').join('.');
}

export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

export function required(field: string, detail = ''): FieldError {
  return detail ? { type: 'FieldValueRequired', field, detail } : { type: 'FieldValueRequired', field };
}

export function invalid(field: string, badValue: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, badValue, detail };
}

export function notSupported(field: string, badValue: unknown, supported: string[]): FieldError {
  return { type: 'FieldValueNotSupported', field, badValue, supported };
}

export function duplicate(field: string, badValue: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, badValue };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail };
}

/** Upstream's TooLong for byte limits. */
export function tooLong(field: string, maxLength: number): FieldError {
  return { type: 'FieldValueTooLong', field, detail: `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` };
}

export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, badValue: actual, detail: `must have at most ${max} items` };
}

/** Upstream's NotFound: `Not found: "x"`. */
export function notFound(field: string, badValue: unknown): FieldError {
  return { type: 'FieldValueNotFound', field, badValue };
}

export const FIELD_IMMUTABLE = 'field is immutable';

/** Structural equality of JSON values (key order ignored); `undefined` members count as absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => deepEqual(ao[k], bo[k]));
}

/** Upstream's ValidateImmutableField: Invalid(path, new, "field is immutable") when values differ. */
export function validateImmutableField(newVal: unknown, oldVal: unknown, field: string): ErrorList {
  return deepEqual(newVal ?? null, oldVal ?? null) ? [] : [invalid(field, newVal ?? null, FIELD_IMMUTABLE)];
}

export function validateNonnegativeField(value: number | undefined, field: string): ErrorList {
  return value !== undefined && value < 0 ? [invalid(field, value, 'must be greater than or equal to 0')] : [];
}
