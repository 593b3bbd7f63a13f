import { stringify } from 'yaml';
import { WireWriter } from '../../api/protobuf/wire-writer.js';

/** gnostic's messages are proto3: zero scalars are left out. */
const proto3 = () => new WireWriter({ skipDefaults: true });

/**
 * Encodes a swagger 2.0 JSON document as gnostic's `openapi.v2.Document`
 * protobuf (google/gnostic openapiv2/OpenAPIv2.proto), the form kubectl asks
 * for with `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`.
 *
 * Each message is a table from JSON key to field number and kind; `x-*` keys
 * become vendor extensions (NamedAny with the value as YAML, which is how
 * gnostic carries arbitrary values).
 */

type Json = Record<string, unknown>;
type FieldWriter = (w: WireWriter, field: number, value: unknown) => void;
type Kind = 'string' | 'bool' | 'int64' | 'double' | 'strings' | FieldWriter;

interface MessageTable {
  name: string;
  fields: Record<string, [number, Kind]>;
  /** Field number of `repeated NamedAny vendor_extension`. */
  extensions?: number;
}

export class GnosticEncodingError extends Error {
  constructor(
    detail: string,
    readonly key: string,
  ) {
    super(`${detail}: ${key}`);
    this.name = 'GnosticEncodingError';
  }
}

function encode(table: MessageTable, value: unknown): WireWriter {
  const w = proto3();
  if (!value || typeof value !== 'object') throw new GnosticEncodingError(`${table.name} expects an object`, String(value));
  for (const [key, v] of Object.entries(value as Json)) {
    if (v === undefined) continue;
    if (key.startsWith('x-') && table.extensions) {
      w.message(table.extensions, namedAny(key, v));
      continue;
    }
    const spec = table.fields[key];
    if (!spec) throw new GnosticEncodingError(`${table.name} has no field`, key);
    writeField(w, spec[0], spec[1], v);
  }
  return w;
}

function writeField(w: WireWriter, no: number, kind: Kind, v: unknown): void {
  switch (kind) {
    case 'string':
      w.string(no, String(v));
      return;
    case 'bool':
      w.bool(no, Boolean(v));
      return;
    case 'int64':
      w.int64(no, Number(v));
      return;
    case 'double':
      w.double(no, Number(v));
      return;
    case 'strings':
      for (const s of v as string[]) w.message(no, Buffer.from(s, 'utf8'));
      return;
    default:
      kind(w, no, v);
  }
}

function namedAny(name: string, value: unknown): WireWriter {
  return proto3().string(1, name).message(2, proto3().string(2, stringify(value)));
}

const message =
  (table: () => MessageTable): FieldWriter =>
  (w, no, v) =>
    w.message(no, encode(table(), v));
const repeated =
  (table: () => MessageTable): FieldWriter =>
  (w, no, v) => {
    for (const item of v as unknown[]) w.message(no, encode(table(), item));
  };
/** A JSON map as `repeated Named<X> { string name = 1; X value = 2; }` inside a wrapper message's field `inner`. */
const namedMap =
  (inner: number, value: FieldWriter): FieldWriter =>
  (w, no, v) => {
    const wrapper = proto3();
    for (const [name, item] of Object.entries(v as Json)) {
      const named = proto3().string(1, name);
      value(named, 2, item);
      wrapper.message(inner, named);
    }
    w.message(no, wrapper);
  };

const SCHEMA: MessageTable = {
  name: 'Schema',
  fields: {
    $ref: [1, 'string'],
    format: [2, 'string'],
    title: [3, 'string'],
    description: [4, 'string'],
    maximum: [7, 'double'],
    minimum: [9, 'double'],
    maxLength: [11, 'int64'],
    minLength: [12, 'int64'],
    pattern: [13, 'string'],
    maxItems: [14, 'int64'],
    minItems: [15, 'int64'],
    uniqueItems: [16, 'bool'],
    required: [19, 'strings'],
    additionalProperties: [21, (w, no, v) => w.message(no, typeof v === 'boolean' ? proto3().bool(2, v) : proto3().message(1, encode(SCHEMA, v)))],
    type: [22, (w, no, v) => w.message(no, typeItem(v))],
    items: [23, (w, no, v) => w.message(no, itemsItem(v))],
    allOf: [24, repeated(() => SCHEMA)],
    properties: [25, namedMap(1, message(() => SCHEMA))],
    readOnly: [27, 'bool'],
  },
  extensions: 31,
};

function typeItem(v: unknown): WireWriter {
  const w = proto3();
  writeField(w, 1, 'strings', Array.isArray(v) ? v : [v]);
  return w;
}

function itemsItem(v: unknown): WireWriter {
  const w = proto3();
  for (const s of Array.isArray(v) ? v : [v]) w.message(1, encode(SCHEMA, s));
  return w;
}

const BODY_PARAMETER: MessageTable = {
  name: 'BodyParameter',
  fields: { description: [1, 'string'], name: [2, 'string'], in: [3, 'string'], required: [4, 'bool'], schema: [5, message(() => SCHEMA)] },
  extensions: 6,
};
const NON_BODY_COMMON: MessageTable['fields'] = { required: [1, 'bool'], in: [2, 'string'], description: [3, 'string'], name: [4, 'string'] };
const QUERY_PARAMETER: MessageTable = {
  name: 'QueryParameterSubSchema',
  fields: { ...NON_BODY_COMMON, allowEmptyValue: [5, 'bool'], type: [6, 'string'], format: [7, 'string'], uniqueItems: [20, 'bool'] },
  extensions: 23,
};
const PATH_PARAMETER: MessageTable = {
  name: 'PathParameterSubSchema',
  fields: { ...NON_BODY_COMMON, type: [5, 'string'], format: [6, 'string'], uniqueItems: [19, 'bool'] },
  extensions: 22,
};

/** ParametersItem { oneof { Parameter parameter = 1; JsonReference json_reference = 2; } } */
const parametersItem: FieldWriter = (w, no, v) => {
  for (const p of v as Json[]) {
    let parameter: WireWriter;
    if (p.in === 'body') parameter = proto3().message(1, encode(BODY_PARAMETER, p));
    else if (p.in === 'query') parameter = proto3().message(2, proto3().message(3, encode(QUERY_PARAMETER, p)));
    else if (p.in === 'path') parameter = proto3().message(2, proto3().message(4, encode(PATH_PARAMETER, p)));
    else throw new GnosticEncodingError('unsupported parameter location', String(p.in));
    w.message(no, proto3().message(1, parameter));
  }
};

const RESPONSE: MessageTable = {
  name: 'Response',
  fields: { description: [1, 'string'], schema: [2, (w, no, v) => w.message(no, proto3().message(1, encode(SCHEMA, v)))] },
  extensions: 5,
};
/** Responses { repeated NamedResponseValue response_code = 1; } with ResponseValue { Response response = 1; } */
const responses: FieldWriter = (w, no, v) => {
  const out = proto3();
  for (const [code, r] of Object.entries(v as Json)) out.message(1, proto3().string(1, code).message(2, proto3().message(1, encode(RESPONSE, r))));
  w.message(no, out);
};

const OPERATION: MessageTable = {
  name: 'Operation',
  fields: {
    tags: [1, 'strings'],
    summary: [2, 'string'],
    description: [3, 'string'],
    operationId: [5, 'string'],
    produces: [6, 'strings'],
    consumes: [7, 'strings'],
    parameters: [8, parametersItem],
    responses: [9, responses],
    schemes: [10, 'strings'],
    deprecated: [11, 'bool'],
  },
  extensions: 13,
};
const PATH_ITEM: MessageTable = {
  name: 'PathItem',
  fields: {
    $ref: [1, 'string'],
    get: [2, message(() => OPERATION)],
    put: [3, message(() => OPERATION)],
    post: [4, message(() => OPERATION)],
    delete: [5, message(() => OPERATION)],
    options: [6, message(() => OPERATION)],
    head: [7, message(() => OPERATION)],
    patch: [8, message(() => OPERATION)],
    parameters: [9, parametersItem],
  },
  extensions: 10,
};
const INFO: MessageTable = { name: 'Info', fields: { title: [1, 'string'], version: [2, 'string'], description: [3, 'string'] }, extensions: 7 };
const DOCUMENT: MessageTable = {
  name: 'Document',
  fields: {
    swagger: [1, 'string'],
    info: [2, message(() => INFO)],
    host: [3, 'string'],
    basePath: [4, 'string'],
    schemes: [5, 'strings'],
    consumes: [6, 'strings'],
    produces: [7, 'strings'],
    // Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
    paths: [8, namedMap(2, message(() => PATH_ITEM))],
    // Definitions { repeated NamedSchema additional_properties = 1; }
    definitions: [9, namedMap(1, message(() => SCHEMA))],
  },
  extensions: 16,
};

/** The gnostic `openapi.v2.Document` bytes of a swagger 2.0 JSON document. */
export function encodeSwaggerDocument(doc: object): Uint8Array {
  return encode(DOCUMENT, doc).finish();
}

/**
 * A JSON schema cut down to what a swagger 2.0 Schema can say (custom
 * resources' schemas are OpenAPI v3): keywords 2.0 lacks (anyOf, oneOf,
 * not, nullable, enum and default here too) are left out, nested schemas
 * likewise; vendor extensions stay.
 */
export function swaggerSchema(schema: unknown): Json {
  const out: Json = {};
  for (const [key, v] of Object.entries(schema as Json)) {
    if (key.startsWith('x-')) out[key] = v;
    else if (!(key in SCHEMA.fields)) continue;
    else if (key === 'properties') out[key] = Object.fromEntries(Object.entries(v as Json).map(([k, p]) => [k, swaggerSchema(p)]));
    else if (key === 'items') out[key] = Array.isArray(v) ? v.map(swaggerSchema) : swaggerSchema(v);
    else if (key === 'allOf') out[key] = (v as unknown[]).map(swaggerSchema);
    else if (key === 'additionalProperties') out[key] = typeof v === 'object' && v !== null ? swaggerSchema(v) : v;
    else out[key] = v;
  }
  return out;
}
