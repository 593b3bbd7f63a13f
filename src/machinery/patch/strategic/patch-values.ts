import { isJsonObject, setOwn, type JsonValue } from '../json-value.js';
import { noListOfLists, patchFailed } from './strategic-errors.js';
import { goFormat } from './go-format.js';

export const DIRECTIVE_MARKER = '$patch';
export const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

/** The coarse Go kind of a decoded JSON value; values of different kinds never merge. */
export type ValueKind = 'map' | 'slice' | 'string' | 'number' | 'bool' | 'null';

export function kindOf(v: JsonValue): ValueKind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'slice';
  if (isJsonObject(v)) return 'map';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return 'string';
}

/** The kind shared by all elements of the lists; lists of lists and mixed lists are refused. */
export function sliceElementKind(...lists: JsonValue[][]): ValueKind {
  let kind: ValueKind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = kindOf(v);
      if (kind === undefined) {
        if (k === 'slice') throw noListOfLists();
        kind = k;
      } else if (k !== kind) {
        throw patchFailed(`list element types are not identical: [${lists.map(goFormat).join(' ')}]`);
      }
    }
  }
  if (kind === undefined) throw patchFailed('no elements in any of the given slices');
  return kind;
}

/**
 * Equality of merge-key values and of primitive list elements: Go compares
 * the decoded interfaces with `==`, so only scalars of one kind can match.
 */
export function scalarEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === b && (a === null || typeof a !== 'object');
}

/**
 * What a patch value becomes when it is taken as is (the field is new, or
 * replaced): nulls in maps mean "absent" and maps carrying `$patch` are
 * dropped, as upstream does; the other directive keys are dropped too, which
 * upstream leaves to decoding into the typed object.
 */
export function patchValueAsIs(v: JsonValue): { value: JsonValue; keep: boolean } {
  if (Array.isArray(v)) {
    const out: JsonValue[] = [];
    for (const item of v) {
      const r = patchValueAsIs(item);
      if (r.keep) out.push(r.value);
    }
    return { value: out, keep: true };
  }
  if (isJsonObject(v)) {
    if (Object.hasOwn(v, DIRECTIVE_MARKER)) return { value: null, keep: false };
    for (const key of Object.keys(v)) {
      const member = v[key];
      if (member === null || isDirectiveKey(key)) {
        delete v[key];
        continue;
      }
      const r = patchValueAsIs(member);
      if (r.keep) setOwn(v, key, r.value);
      else delete v[key];
    }
    return { value: v, keep: true };
  }
  return { value: v, keep: true };
}

function isDirectiveKey(key: string): boolean {
  return (
    key === RETAIN_KEYS_DIRECTIVE ||
    key.startsWith(`${SET_ELEMENT_ORDER_PREFIX}/`) ||
    key.startsWith(`${DELETE_FROM_PRIMITIVE_LIST_PREFIX}/`)
  );
}
