import { child, index, invalid, key, notSupported, required, tooLong, tooMany, type ErrorList } from '../../../api/validation/errors.js';
import { nameIsDNSSubdomain } from '../../../api/validation/name.js';
import { validateObjectMeta } from '../../../api/validation/object-meta.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { matchesFormat } from './formats.js';
import { additionalSchema, isObject, itemsSchema, type Schema } from './json-schema.js';

/**
 * Validates a custom resource (or any value) against its structural schema,
 * with upstream's error texts (kube-openapi's validator as the API server
 * reports it): every failing field, not just the first.
 */
export function validateValue(value: unknown, s: Schema, path: string): ErrorList {
  const errs: ErrorList = [];
  walk(value, s, path, errs);
  return errs;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function inBody(path: string): string {
  return `${path} in body`;
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
  }
  return true;
}

function walk(v: unknown, s: Schema, path: string, errs: ErrorList): void {
  if (v === null) {
    if (!s.nullable && (s.type || s['x-kubernetes-int-or-string'])) {
      const want = s['x-kubernetes-int-or-string'] ? 'integer,string' : s.type;
      errs.push(invalid(path, 'null', `${inBody(path)} must be of type ${want}: "null"`));
    }
    return;
  }
  if (s['x-kubernetes-int-or-string']) {
    if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v))) {
      errs.push(invalid(path, jsonType(v), `${inBody(path)} must be of type integer,string: "${jsonType(v)}"`));
      return;
    }
  } else if (s.type && !typeMatches(s.type, v)) {
    errs.push(invalid(path, jsonType(v), `${inBody(path)} must be of type ${s.type}: "${jsonType(v)}"`));
    return;
  }
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    errs.push(notSupported(path, v, s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  }
  if (typeof v === 'string') stringChecks(v, s, path, errs);
  else if (typeof v === 'number') numberChecks(v, s, path, errs);
  else if (Array.isArray(v)) arrayChecks(v, s, path, errs);
  else if (isObject(v)) objectChecks(v, s, path, errs);
  junctors(v, s, path, errs);
}

function stringChecks(v: string, s: Schema, path: string, errs: ErrorList): void {
  const length = [...v].length;
  if (s.maxLength !== undefined && length > s.maxLength) errs.push(tooLong(path, s.maxLength));
  if (s.minLength !== undefined && length < s.minLength) errs.push(invalid(path, v, `${inBody(path)} should be at least ${s.minLength} chars long`));
  if (s.pattern && !compile(s.pattern)?.test(v)) errs.push(invalid(path, v, `${inBody(path)} should match '${s.pattern}'`));
  if (s.format && !matchesFormat(s.format, v)) errs.push(invalid(path, v, `${inBody(path)} must be of type ${s.format}: ${JSON.stringify(v)}`));
}

const patterns = new Map<string, RegExp | undefined>();

function compile(pattern: string): RegExp | undefined {
  if (!patterns.has(pattern)) {
    try {
      patterns.set(pattern, new RegExp(pattern, 'u'));
    } catch {
      patterns.set(pattern, undefined);
    }
  }
  return patterns.get(pattern);
}

function numberChecks(v: number, s: Schema, path: string, errs: ErrorList): void {
  if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) {
    errs.push(invalid(path, v, `${inBody(path)} should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`));
  }
  if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) {
    errs.push(invalid(path, v, `${inBody(path)} should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`));
  }
  if (s.multipleOf !== undefined && s.multipleOf > 0 && !Number.isInteger(v / s.multipleOf)) {
    errs.push(invalid(path, v, `${inBody(path)} should be a multiple of ${s.multipleOf}`));
  }
}

function arrayChecks(v: unknown[], s: Schema, path: string, errs: ErrorList): void {
  if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(tooMany(path, v.length, s.maxItems));
  if (s.minItems !== undefined && v.length < s.minItems) errs.push(invalid(path, v.length, `${inBody(path)} should have at least ${s.minItems} items`));
  const items = itemsSchema(s);
  if (items) v.forEach((item, i) => walk(item, items, index(path, i), errs));
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set' || listType === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const seen = new Set<string>();
    v.forEach((item, i) => {
      const id = listType === 'set' ? JSON.stringify(item) : JSON.stringify(keys.map((k) => (isObject(item) ? item[k] : undefined)));
      if (seen.has(id)) errs.push({ type: 'FieldValueDuplicate', field: index(path, i), badValue: listType === 'set' ? item : mapKeyValue(item, keys) });
      seen.add(id);
    });
  }
}

function mapKeyValue(item: unknown, keys: string[]): unknown {
  if (!isObject(item)) return item;
  return Object.fromEntries(keys.map((k) => [k, item[k]]));
}

function objectChecks(v: Record<string, unknown>, s: Schema, path: string, errs: ErrorList): void {
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties) errs.push(tooMany(path, n, s.maxProperties));
  if (s.minProperties !== undefined && n < s.minProperties) errs.push(invalid(path, n, `${inBody(path)} should have at least ${s.minProperties} properties`));
  for (const r of s.required ?? []) if (!(r in v)) errs.push(required(child(path, r)));
  const props = s.properties ?? {};
  const extra = additionalSchema(s);
  for (const [k, val] of Object.entries(v)) {
    const ps = props[k];
    if (ps) walk(val, ps, child(path, k), errs);
    else if (extra) walk(val, extra, key(path, k), errs);
  }
  if (s['x-kubernetes-embedded-resource']) embedded(v, path, errs);
}

/** An embedded object (x-kubernetes-embedded-resource) needs apiVersion, kind and valid metadata. */
function embedded(v: Record<string, unknown>, path: string, errs: ErrorList): void {
  if (typeof v.apiVersion !== 'string' || !v.apiVersion) errs.push(required(child(path, 'apiVersion'), 'must not be empty'));
  if (typeof v.kind !== 'string' || !v.kind) errs.push(required(child(path, 'kind'), 'must not be empty'));
  if (isObject(v.metadata)) {
    const meta = v.metadata as ObjectMeta;
    // an embedded object may leave its name to whoever creates it
    const checked = validateObjectMeta({ name: 'x', ...meta }, false, nameIsDNSSubdomain, child(path, 'metadata'));
    errs.push(...checked.filter((e) => !e.field.endsWith('.namespace')));
  }
}

function junctors(v: unknown, s: Schema, path: string, errs: ErrorList): void {
  const passes = (n: Schema) => validateValue(v, n, path).length === 0;
  if (s.allOf) for (const n of s.allOf) walk(v, n, path, errs);
  if (s.anyOf && !s['x-kubernetes-int-or-string'] && !s.anyOf.some(passes)) {
    errs.push(invalid(path, v, `${inBody(path)} must validate at least one schema (anyOf)`));
  }
  if (s.oneOf && s.oneOf.filter(passes).length !== 1) errs.push(invalid(path, v, `${inBody(path)} must validate one and only one schema (oneOf)`));
  if (s.not && passes(s.not)) errs.push(invalid(path, v, `${inBody(path)} must not validate the schema (not)`));
}
