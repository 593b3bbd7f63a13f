import type { KubeObject } from '../../api/object.js';
import { encodeProtobufWatchEvent, PROTOBUF_WATCH_CONTENT_TYPE } from '../../api/protobuf/encode-protobuf-object.js';
import { contentTypeOf, type Rendering } from '../http/respond.js';
import type { WatchEventType } from '../registry/watch.js';

/** The bytes of one watch event on the wire. */
export type WatchEventEncoder = (type: WatchEventType, object: unknown) => string | Buffer;

/** Whether events go out as length-prefixed protobuf WatchEvent frames. */
export function isProtobufWatch(r: Rendering): boolean {
  return r.kind === 'protobuf' || (r.kind === 'metadata' && r.protobuf === true);
}

/** The watch response's media type: upstream adds `;stream=watch` for protobuf. */
export function watchContentType(r: Rendering): string {
  if (r.kind === 'protobuf') return PROTOBUF_WATCH_CONTENT_TYPE;
  if (r.kind === 'metadata' && r.protobuf) return `${contentTypeOf(r)};stream=watch`;
  return contentTypeOf(r);
}

/** Newline-delimited JSON `{"type":…,"object":…}`, or protobuf frames (4-byte big-endian length + metav1.WatchEvent). */
export function watchEventEncoder(r: Rendering): WatchEventEncoder {
  if (isProtobufWatch(r)) return (type, object) => encodeProtobufWatchEvent(type, object as Record<string, unknown>);
  return (type, object) => `${JSON.stringify({ type, object })}\n`;
}

/*
 * Watchers of the same resource get the same decoded objects, so each event
 * is encoded once for all of them, and kept as bytes: a string written to
 * each watcher's response would be UTF-8 encoded again per watcher.
 */
const jsonLines = new WeakMap<KubeObject, Partial<Record<WatchEventType, Buffer>>>();
const protobufFrames = new WeakMap<KubeObject, Partial<Record<WatchEventType, Buffer>>>();

/** The event of a stored object in the resource's own form (JSON or protobuf), encoded once per object and type. */
export function sharedWatchEvent(r: Rendering, type: WatchEventType, object: KubeObject): Buffer {
  if (r.kind === 'protobuf') {
    let frames = protobufFrames.get(object);
    if (!frames) protobufFrames.set(object, (frames = {}));
    return (frames[type] ??= encodeProtobufWatchEvent(type, object));
  }
  let lines = jsonLines.get(object);
  if (!lines) jsonLines.set(object, (lines = {}));
  return (lines[type] ??= Buffer.from(`${JSON.stringify({ type, object })}\n`));
}

const causedJsonLines = new WeakMap<KubeObject, Partial<Record<WatchEventType, Buffer>>>();
const CAUSED_END = Buffer.from('}\n');

/**
 * The JSON event with skiff's `cause` field (see causeField) for watchers
 * that asked for it: the same for every such watcher, so built once per
 * object and type once the cause is known (an event whose cause is not
 * known yet is built again for the next watcher).
 */
export function sharedCausedWatchLine(type: WatchEventType, object: KubeObject, causeField: () => string): Buffer {
  const cached = causedJsonLines.get(object)?.[type];
  if (cached !== undefined) return cached;
  const line = sharedWatchEvent({ kind: 'json' }, type, object);
  const cause = causeField();
  if (!cause) return line;
  // the line ends with the event's closing brace and a newline: the cause field goes before them
  const caused = Buffer.concat([line.subarray(0, -2), Buffer.from(cause), CAUSED_END]);
  let lines = causedJsonLines.get(object);
  if (!lines) causedJsonLines.set(object, (lines = {}));
  lines[type] = caused;
  return caused;
}
