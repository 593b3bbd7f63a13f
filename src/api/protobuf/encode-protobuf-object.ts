import { PROTOBUF_MAGIC } from './decode-protobuf-object.js';
import { encodeMessageInto } from './encode-message.js';
import { protobufMessageFor } from './kind-messages.js';
import { WireWriter } from './wire-writer.js';

export { protobufMessageFor };

/** The media type of a protobuf watch stream (length-prefixed WatchEvent messages). */
export const PROTOBUF_WATCH_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';

interface TypedObject {
  apiVersion?: unknown;
  kind?: unknown;
  [field: string]: unknown;
}

function typeOf(obj: TypedObject): { apiVersion: string; kind: string } {
  return { apiVersion: typeof obj.apiVersion === 'string' ? obj.apiVersion : '', kind: typeof obj.kind === 'string' ? obj.kind : '' };
}

/** Whether `encodeProtobufObject` can write this object (a built-in kind, a list of one, Status, PartialObjectMetadata). */
export function canEncodeProtobuf(obj: unknown): boolean {
  if (typeof obj !== 'object' || obj === null) return false;
  const { apiVersion, kind } = typeOf(obj as TypedObject);
  return protobufMessageFor(apiVersion, kind) !== undefined;
}

export class NotProtobufEncodableError extends Error {
  override readonly name = 'NotProtobufEncodableError';
  constructor(readonly apiVersion: string, readonly kind: string) {
    super(`${apiVersion} ${kind} has no protobuf message`);
  }
}

/**
 * An object as the API server sends it with `application/vnd.kubernetes.protobuf`:
 * the `k8s\0` magic, then runtime.Unknown {typeMeta {apiVersion, kind}, raw,
 * contentEncoding "", contentType ""} with the object's message in raw (a
 * list's items carry no apiVersion/kind, as upstream's).
 */
export function encodeProtobufObject(obj: TypedObject): Buffer {
  const w = new WireWriter();
  writeEnvelope(w, obj);
  return w.finish();
}

function writeEnvelope(w: WireWriter, obj: TypedObject): void {
  const { apiVersion, kind } = typeOf(obj);
  const target = protobufMessageFor(apiVersion, kind);
  if (!target) throw new NotProtobufEncodableError(apiVersion, kind);
  w.raw(PROTOBUF_MAGIC);
  const typeMeta = w.fork(1);
  w.string(1, apiVersion).string(2, kind);
  w.join(typeMeta);
  const raw = w.fork(2);
  if (target.list) {
    const meta = w.fork(1);
    encodeMessageInto(w, obj.metadata, 'ListMeta');
    w.join(meta);
    for (const item of Array.isArray(obj.items) ? obj.items : []) {
      const mark = w.fork(2);
      encodeMessageInto(w, item, target.type);
      w.join(mark);
    }
  } else {
    encodeMessageInto(w, obj, target.type);
  }
  w.join(raw);
  w.string(3, '').string(4, '');
}

/**
 * One frame of a protobuf watch: a 4-byte big-endian length, then
 * metav1.WatchEvent {1 type, 2 object: RawExtension {1 raw}} whose raw is
 * the object in the envelope above.
 */
export function encodeProtobufWatchEvent(type: string, obj: TypedObject): Buffer {
  const w = new WireWriter();
  w.raw(FRAME_PLACEHOLDER);
  w.string(1, type);
  const object = w.fork(2);
  const raw = w.fork(1);
  writeEnvelope(w, obj);
  w.join(raw);
  w.join(object);
  const frame = w.finish();
  frame.writeUInt32BE(frame.length - 4, 0);
  return frame;
}

const FRAME_PLACEHOLDER = new Uint8Array(4);
