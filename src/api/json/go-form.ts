/**
 * Puts a JSON object into the form Go's encoding/json gives the upstream
 * type it is: fields in struct order, `omitempty` honoured per field (empty
 * strings, zeros, false, empty slices and maps dropped where the tag says
 * so, kept where it does not), non-pointer structs always present (`status:
 * {}`, `loadBalancer: {}`), a zero metav1.Time as null, map keys sorted. The
 * one source is the protobuf message tables (field order, pointer,
 * omitempty and inline come from the Go structs); kinds without a table
 * (custom resources) pass through unchanged, and fields a table does not
 * know are kept after the known ones.
 */
import { isScalarType, type FieldSpec } from '../protobuf/message-schema.js';
import { ALL_MESSAGES, KIND_MESSAGES } from '../protobuf/schemas/all-messages.js';
import { GO_FIELD_ORDER } from './go-field-order.js';

type Json = unknown;
type JsonObject = Record<string, Json>;

interface Layout {
  fields: readonly FieldSpec[];
  /** Per field: whether it is printed even when absent (no omitempty, or a struct value). */
  printedWhenAbsent: readonly boolean[];
  names: ReadonlySet<string>;
  /** Each field's position by JSON name, and the positions printed even when absent. */
  index: ReadonlyMap<string, number>;
  always: readonly number[];
}

function printedWhenAbsent(f: FieldSpec): boolean {
  return f.required || (!f.map && !f.repeated && !f.pointer && f.type !== 'y' && !isScalarType(f.type));
}

const layouts = new Map<string, Layout | null>();

/** A message's fields in Go order, inline structs flattened in place. */
function layoutOf(type: string): Layout | undefined {
  let l = layouts.get(type);
  if (l === undefined) {
    const schema = ALL_MESSAGES[type];
    if (!schema) {
      l = null;
    } else {
      const order = GO_FIELD_ORDER[type] ?? [...schema.keys()];
      const fields: FieldSpec[] = [];
      for (const n of order) {
        const f = schema.get(n);
        if (!f) continue;
        if (f.inline) fields.push(...(layoutOf(f.type)?.fields ?? []));
        else fields.push(f);
      }
      const printed = fields.map(printedWhenAbsent);
      l = {
        fields,
        printedWhenAbsent: printed,
        names: new Set(fields.map((f) => f.json)),
        index: new Map(fields.map((f, i) => [f.json, i])),
        always: printed.flatMap((p, i) => (p ? [i] : [])),
      };
    }
    layouts.set(type, l);
  }
  return l ?? undefined;
}

function isObject(v: Json): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Zero values of the types whose JSON is not an object (see protobuf special-types). */
const SPECIAL_ZERO: Record<string, Json> = {
  Time: null,
  MicroTime: null,
  RawExtension: null,
  Duration: '0s',
  Quantity: '0',
  IntOrString: 0,
  FieldsV1: {},
  ExtraValue: null,
};

function isSpecial(type: string): boolean {
  return type in SPECIAL_ZERO;
}

function isZeroScalar(v: Json): boolean {
  return v === '' || v === 0 || v === false;
}

function zeroScalar(type: string): Json {
  return type === 'b' ? false : type === 'i32' || type === 'i64' ? 0 : '';
}

/** Go's encoding/json sorts map keys. */
function sortedMap(m: JsonObject, value: (v: Json) => Json): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(m).sort()) out[k] = value(m[k]);
  return out;
}

function formValue(v: Json, type: string): Json {
  if (isScalarType(type) || isSpecial(type)) return v;
  return formMessage(v, type);
}

/*
 * Walks the object's own keys rather than every field the type has: objects
 * are sparse, and those read from storage are in Go's order already (then
 * nothing is sorted).
 */
function formMessage(v: Json, type: string): Json {
  const layout = layoutOf(type);
  if (!layout || !isObject(v)) return v;
  const { fields, index } = layout;
  const present: number[] = [];
  let unknown: string[] | undefined;
  let ordered = true;
  for (const k of Object.keys(v)) {
    const i = index.get(k);
    if (i === undefined) (unknown ??= []).push(k);
    else if (v[k] !== undefined) {
      if (present.length > 0 && i < present[present.length - 1]!) ordered = false;
      present.push(i);
    }
  }
  for (const i of layout.always) {
    if (v[fields[i]!.json] !== undefined) continue;
    present.push(i);
    ordered = false;
  }
  if (!ordered) present.sort((a, b) => a - b);
  const out: JsonObject = {};
  for (const i of present) put(out, fields[i]!, v[fields[i]!.json]);
  if (unknown) for (const k of unknown) if (!(k in out)) out[k] = v[k];
  return out;
}

function put(out: JsonObject, f: FieldSpec, v: Json): void {
  const absent = v === undefined || v === null;
  if (f.map) {
    if (absent) {
      if (f.required) out[f.json] = null;
    } else if (!isObject(v)) {
      out[f.json] = v;
    } else if (f.required || Object.keys(v).length > 0) {
      out[f.json] = sortedMap(v, (x) => formValue(x, f.type));
    }
    return;
  }
  if (f.repeated || f.type === 'y') {
    if (absent) {
      if (f.required) out[f.json] = null;
    } else if (!Array.isArray(v)) {
      if (f.required || v !== '') out[f.json] = v;
    } else if (f.required || v.length > 0) {
      out[f.json] = isScalarType(f.type) ? v : v.map((x) => formValue(x, f.type));
    }
    return;
  }
  if (f.pointer) {
    if (!absent) out[f.json] = formValue(v, f.type);
    else if (f.required) out[f.json] = null;
    return;
  }
  if (isScalarType(f.type)) {
    if (absent) {
      if (f.required) out[f.json] = zeroScalar(f.type);
    } else if (f.required || !isZeroScalar(v)) {
      out[f.json] = v;
    }
    return;
  }
  // a struct value: omitempty never drops it
  if (isSpecial(f.type)) out[f.json] = absent || v === '' ? SPECIAL_ZERO[f.type] : v;
  else out[f.json] = formMessage(absent ? {} : v, f.type);
}

/** metadata in Go's ObjectMeta form. */
export function objectMetaGoForm<T extends object>(metadata: T): T {
  return formMessage(metadata, 'ObjectMeta') as T;
}

/**
 * A list of a built-in kind with its envelope in Go's form and its items as
 * they are (items come from storage, already in Go's form); undefined for
 * anything that is not such a list.
 */
export function listEnvelopeGoForm(obj: unknown): unknown {
  if (!isObject(obj) || typeof obj.kind !== 'string' || !obj.kind.endsWith('List') || !Array.isArray(obj.items)) return undefined;
  const out: JsonObject = typeMeta(obj);
  out.metadata = formMessage(obj.metadata ?? {}, 'ListMeta');
  out.items = obj.items;
  for (const k of Object.keys(obj)) if (!(k in out)) out[k] = obj[k];
  return out;
}

/** The message that describes objects of an apiVersion and kind, if skiff has one. */
export function messageOfKind(apiVersion: string, kind: string): string | undefined {
  return KIND_MESSAGES[`${apiVersion}/${kind}`];
}

/**
 * An object or a list of a built-in kind in Go's form (TypeMeta first:
 * `kind`, then `apiVersion`). Anything else is returned unchanged.
 */
export function toGoForm<T>(obj: T): T {
  if (!isObject(obj)) return obj;
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  if (kind.endsWith('List') && Array.isArray(obj.items)) {
    const itemType = messageOfKind(apiVersion, kind.slice(0, -'List'.length));
    const out: JsonObject = typeMeta(obj);
    out.metadata = formMessage(obj.metadata ?? {}, 'ListMeta');
    out.items = itemType ? obj.items.map((i) => (isObject(i) ? { ...typeMeta(i), ...(formMessage(i, itemType) as JsonObject) } : i)) : obj.items;
    for (const k of Object.keys(obj)) if (!(k in out)) out[k] = obj[k];
    return out as T;
  }
  const type = messageOfKind(apiVersion, kind);
  if (!type) return obj;
  return { ...typeMeta(obj), ...(formMessage(obj, type) as JsonObject) } as T;
}

function typeMeta(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  if (obj.kind) out.kind = obj.kind;
  if (obj.apiVersion) out.apiVersion = obj.apiVersion;
  return out;
}
