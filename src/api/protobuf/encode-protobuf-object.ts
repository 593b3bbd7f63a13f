import { PROTOBUF_MAGIC } from './decode-protobuf-object.js';
import { encodeMessageInto } from './encode-message.js';
import { protobufMessageFor } from './kind-messages.js';
import { varintSize, WireWriter } from './wire-writer.js';

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

/** One item of a list as it sits inside the list's message: the object's own message, without the envelope. */
export function encodeProtobufListItem(obj: TypedObject, messageType: string): Buffer {
  const w = new WireWriter();
  encodeMessageInto(w, obj, messageType);
  return w.finish();
}

/**
 * A list in the envelope of encodeProtobufObject, assembled around items
 * already encoded by encodeProtobufListItem: the parts to send in order (the
 * items themselves are not copied), so a list from the watch cache costs one
 * encoding per object, not one per object per list.
 */
export function encodeProtobufListParts(apiVersion: string, kind: string, metadata: unknown, items: readonly Uint8Array[]): Uint8Array[] {
  const meta = new WireWriter();
  encodeMessageInto(meta, metadata as Record<string, unknown>, 'ListMeta');
  const metaBytes = meta.finish();
  // each item is field 2 of the list message: a tag byte and its length in front of it
  const prefixes = new WireWriter();
  const ends: number[] = [];
  let rawLength = 1 + varintSize(metaBytes.length) + metaBytes.length;
  for (const item of items) {
    prefixes.tag(2, 2);
    prefixes.varint(item.length);
    ends.push(prefixes.length);
    rawLength += 1 + varintSize(item.length) + item.length;
  }
  const head = new WireWriter();
  head.raw(PROTOBUF_MAGIC);
  const typeMeta = head.fork(1);
  head.string(1, apiVersion).string(2, kind);
  head.join(typeMeta);
  head.tag(2, 2);
  head.varint(rawLength);
  head.bytes(1, metaBytes);
  const prefixBytes = prefixes.finish();
  const parts: Uint8Array[] = [head.finish()];
  let from = 0;
  items.forEach((item, i) => {
    parts.push(prefixBytes.subarray(from, ends[i]), item);
    from = ends[i]!;
  });
  parts.push(ENVELOPE_TAIL);
  return parts;
}

/** contentEncoding "" and contentType "" of runtime.Unknown. */
const ENVELOPE_TAIL = Uint8Array.of(0x1a, 0x00, 0x22, 0x00);

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
