/**
 * Our own compact description of a Kubernetes protobuf message: field number
 * → how the field looks in JSON. Numbers come from the published
 * `generated.proto` files; the JSON behaviour (pointer, omitempty, inline)
 * comes from the Go struct tags, because protobuf alone cannot tell whether an
 * absent or zero field is printed.
 */

/** Wire scalars we decode; every other type name refers to a message. */
export const SCALAR_TYPES = ['s', 'b', 'i32', 'i64', 'y'] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];

export interface FieldSpec {
  /** JSON field name. */
  readonly json: string;
  /** A ScalarType or a message name. */
  readonly type: string;
  readonly repeated: boolean;
  /** `map<string, type>`. */
  readonly map: boolean;
  /** Go pointer (`*T`): printed whenever present on the wire, even when zero. */
  readonly pointer: boolean;
  /** No `omitempty`: printed even when zero, as null when a nil pointer/slice/map. */
  readonly required: boolean;
  /** `json:",inline"`: the message's fields are merged into the parent object. */
  readonly inline: boolean;
}

export type MessageSchema = ReadonlyMap<number, FieldSpec>;

export type MessageTable = Readonly<Record<string, MessageSchema>>;

const FIELD = /^(\w+)(?::(\w+))?(\[\]|\{\})?([*!^]*)$/;

/**
 * Parses one field spec: `name[:type][[]|{}][*][!][^]`.
 *  - type defaults to `s` (string); `b` bool, `i32`, `i64`, `y` bytes, else a message name
 *  - `[]` repeated, `{}` map with string keys
 *  - `*` Go pointer, `!` no omitempty, `^` inline
 */
export function parseField(spec: string): FieldSpec {
  const m = FIELD.exec(spec);
  if (!m) throw new TypeError(`bad protobuf field spec ${JSON.stringify(spec)}`);
  const mods = m[4] ?? '';
  return {
    json: m[1] as string,
    type: m[2] ?? 's',
    repeated: m[3] === '[]',
    map: m[3] === '{}',
    pointer: mods.includes('*'),
    required: mods.includes('!'),
    inline: mods.includes('^'),
  };
}

/** Builds a message schema from `{ fieldNumber: spec }`. */
export function message(fields: Record<number, string>): MessageSchema {
  return new Map(Object.entries(fields).map(([n, spec]) => [Number(n), parseField(spec)]));
}

/** Builds a table of messages from plain `{ Name: { n: spec } }` records. */
export function messages(defs: Record<string, Record<number, string>>): MessageTable {
  return Object.fromEntries(Object.entries(defs).map(([name, fields]) => [name, message(fields)]));
}

export function isScalarType(type: string): type is ScalarType {
  return (SCALAR_TYPES as readonly string[]).includes(type);
}
