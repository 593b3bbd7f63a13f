/**
 * One step of a field path, as structured-merge-diff names them: a struct or
 * map field, an associative-list item picked by its keys, a set-list item
 * picked by its value, or (for lists with no identity) an index.
 */
import type { JsonValue } from '../patch/json-value.js';
import { isJsonObject } from '../patch/json-value.js';

export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: readonly (readonly [string, JsonValue])[] }
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'index'; readonly index: number };

export type Path = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return { kind: 'field', name };
}

/** Key fields are kept sorted by name, as upstream does, so equal keys serialize equally. */
export function keyElement(fields: Record<string, JsonValue>): PathElement {
  const sorted = Object.keys(fields)
    .sort()
    .map((k) => [k, fields[k]] as const);
  return { kind: 'key', fields: sorted };
}

export function valueElement(value: JsonValue): PathElement {
  return { kind: 'value', value };
}

export function indexElement(index: number): PathElement {
  return { kind: 'index', index };
}

/** Builds a path of field names, e.g. `fieldPath('spec', 'replicas')`. */
export function fieldPath(...names: string[]): Path {
  return names.map(fieldElement);
}

/** JSON with object members sorted, so a key or value has one spelling. */
export function canonicalJson(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isJsonObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The FieldsV1 member name of an element: `f:name`, `k:{...}`, `v:...`, `i:N`. */
export function elementToFieldsV1Key(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
    case 'value':
      return `v:${canonicalJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

export class FieldPathError extends Error {
  override readonly name = 'FieldPathError';
}

/** Parses a FieldsV1 member name; throws FieldPathError on anything else. */
export function elementFromFieldsV1Key(s: string): PathElement {
  const prefix = s.slice(0, 2);
  const rest = s.slice(2);
  try {
    switch (prefix) {
      case 'f:':
        return fieldElement(rest);
      case 'k:': {
        const parsed: unknown = JSON.parse(rest);
        if (!isJsonObject(parsed)) break;
        return keyElement(parsed);
      }
      case 'v:':
        return valueElement(JSON.parse(rest) as JsonValue);
      case 'i:': {
        const n = Number(rest);
        if (!Number.isInteger(n) || n < 0 || rest === '') break;
        return indexElement(n);
      }
    }
  } catch {
    // fall through to the typed error below
  }
  throw new FieldPathError(`invalid path element ${JSON.stringify(s)}`);
}

/** Like Go's value.ToString: scalars plainly (strings quoted), composites as JSON. */
function valueToString(v: JsonValue): string {
  return canonicalJson(v);
}

/** The human form used in conflict messages: `.spec`, `[name="web"]`, `[=x]`, `[0]`. */
export function elementToString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([k, v]) => `${k}=${valueToString(v)}`).join(',')}]`;
    case 'value':
      return `[=${valueToString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

export function pathToString(path: Path): string {
  return path.map(elementToString).join('');
}

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

/** Total order on elements, matching upstream's so serialized sets come out in its order. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  switch (a.kind) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'key': {
      const bf = (b as typeof a).fields;
      for (let i = 0; ; i++) {
        if (i >= a.fields.length || i >= bf.length) return a.fields.length - bf.length;
        const c = compareStrings(a.fields[i][0], bf[i][0]) || compareValues(a.fields[i][1], bf[i][1]);
        if (c !== 0) return c;
      }
    }
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index':
      return a.index - (b as typeof a).index;
  }
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// Upstream orders values numbers < strings < booleans < lists < maps < null.
function typeRank(v: JsonValue): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v === null) return 5;
  return 4;
}

function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number') return a - (b as number);
  if (typeof a === 'string') return compareStrings(a, b as string);
  if (typeof a === 'boolean') return Number(a) - Number(b as boolean);
  return compareStrings(canonicalJson(a), canonicalJson(b));
}
