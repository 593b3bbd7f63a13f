import protobuf from 'protobufjs';
import { isScalarType, type MessageTable } from './message-schema.js';
import { ALL_MESSAGES } from './schemas/all-messages.js';

/**
 * A protobufjs reflection root built from skiff's message tables, so tests
 * can read skiff's protobuf output with a decoder that shares none of
 * skiff's wire code. The special types get their upstream message shapes;
 * runtime.Unknown and metav1.WatchEvent wrap objects and watch frames.
 */
const SCALARS: Record<string, string> = { s: 'string', b: 'bool', i32: 'int32', i64: 'int64', y: 'bytes' };

const EXTRA: Record<string, [string, number, string, ('repeated' | 'map')?][]> = {
  Time: [['seconds', 1, 'int64'], ['nanos', 2, 'int32']],
  MicroTime: [['seconds', 1, 'int64'], ['nanos', 2, 'int32']],
  Duration: [['duration', 1, 'int64']],
  Quantity: [['string', 1, 'string']],
  IntOrString: [['type', 1, 'int64'], ['intVal', 2, 'int32'], ['strVal', 3, 'string']],
  FieldsV1: [['Raw', 1, 'bytes']],
  RawExtension: [['raw', 1, 'bytes']],
  ExtraValue: [['items', 1, 'string', 'repeated']],
  TypeMeta: [['apiVersion', 1, 'string'], ['kind', 2, 'string']],
  Unknown: [['typeMeta', 1, 'TypeMeta'], ['raw', 2, 'bytes'], ['contentEncoding', 3, 'string'], ['contentType', 4, 'string']],
  WatchEvent: [['type', 1, 'string'], ['object', 2, 'RawExtension']],
};

export function protobufjsRoot(table: MessageTable = ALL_MESSAGES): protobuf.Root {
  const root = new protobuf.Root();
  for (const [name, schema] of Object.entries(table)) {
    const type = new protobuf.Type(name);
    for (const [n, f] of schema) {
      const t = isScalarType(f.type) ? (SCALARS[f.type] as string) : f.type;
      // field names must be unique per message; inline structs have no JSON name of their own
      const fieldName = `${f.json}_${n}`;
      if (f.map) type.add(new protobuf.MapField(fieldName, n, 'string', t));
      else type.add(new protobuf.Field(fieldName, n, t, f.repeated ? 'repeated' : 'optional'));
    }
    root.add(type);
  }
  for (const [name, fields] of Object.entries(EXTRA)) {
    const type = new protobuf.Type(name);
    for (const [fieldName, n, t, rule] of fields) type.add(new protobuf.Field(fieldName, n, t, rule));
    root.add(type);
  }
  root.resolveAll();
  return root;
}

/** Decodes a `k8s\0` body with protobufjs: the envelope, then its raw as `message`. */
export function decodeEnvelope(root: protobuf.Root, body: Uint8Array): { apiVersion: string; kind: string; raw: Uint8Array } {
  if (Buffer.from(body.subarray(0, 4)).toString('latin1') !== 'k8s\0') throw new Error('no k8s magic');
  const unknown = root.lookupType('Unknown').decode(body.subarray(4)) as unknown as { typeMeta: { apiVersion: string; kind: string }; raw: Uint8Array };
  return { apiVersion: unknown.typeMeta.apiVersion, kind: unknown.typeMeta.kind, raw: unknown.raw };
}
