import { escapeGoJson } from '../../api/json/go-json.js';
import { messageOfKind, objectMetaGoForm, toGoForm } from '../../api/json/go-form.js';
import { encodeProtobufListItem } from '../../api/protobuf/encode-protobuf-object.js';
import type { KubeObject } from '../../api/object.js';
import { internalError } from '../../machinery/api-error.js';
import type { KeyValue } from '../../storage/storage.js';
import { RecentMap } from './recent-map.js';

/**
 * Objects are stored as the JSON Go's encoding/json would write for them
 * (field order, omitted empties, present empty structs: see toGoForm), so
 * lists and watches serve stored bytes as they are. The storage revision of
 * the key *is* the resourceVersion: it is stored as the placeholder "0" in
 * its Go position, which comes before any nested object (kind, apiVersion,
 * then metadata's name, namespace, uid), so the first `"resourceVersion":"0"`
 * is the object's own and is replaced on read without a parse (encodedJson).
 */
const RV_PLACEHOLDER = '"resourceVersion":"0"';
/** The layout skiff stored before objects were kept in Go's form. */
const LEGACY_METADATA_PREFIX = '{"metadata":{';

export function encodeObject(obj: KubeObject): Uint8Array {
  const metadata = { ...obj.metadata, resourceVersion: '0' };
  let stored: KubeObject;
  if (typeof obj.kind === 'string' && typeof obj.apiVersion === 'string' && messageOfKind(obj.apiVersion, obj.kind)) {
    stored = toGoForm({ ...obj, metadata });
  } else {
    // kinds without a Go layout still get kind, apiVersion and metadata first, in Go's ObjectMeta order
    const { kind, apiVersion, metadata: _, ...rest } = obj;
    stored = { kind, apiVersion, metadata: objectMetaGoForm(metadata), ...rest };
  }
  return Buffer.from(escapeGoJson(JSON.stringify(stored)));
}

function text(kv: KeyValue): string {
  return Buffer.from(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength).toString('utf8');
}

export function decodeObject(kv: KeyValue, revision = kv.modRevision): KubeObject {
  let obj: KubeObject;
  try {
    obj = JSON.parse(text(kv)) as KubeObject;
  } catch {
    throw internalError(`stored object at ${kv.key} is not valid JSON`);
  }
  obj.metadata = { ...obj.metadata, resourceVersion: String(revision) };
  return obj;
}

/** The object's JSON with its resourceVersion, spliced in without a parse when the layout allows. */
export function encodedJson(kv: KeyValue, revision = kv.modRevision): string {
  const s = text(kv);
  const at = s.startsWith(LEGACY_METADATA_PREFIX) ? -1 : s.indexOf(RV_PLACEHOLDER);
  if (at > 0) return `${s.slice(0, at)}"resourceVersion":"${revision}"${s.slice(at + RV_PLACEHOLDER.length)}`;
  return escapeGoJson(JSON.stringify(decodeObject(kv, revision)));
}

const RV_PLACEHOLDER_BYTES = Buffer.from(RV_PLACEHOLDER);
const LEGACY_PREFIX_BYTES = Buffer.from(LEGACY_METADATA_PREFIX);

/**
 * encodedJson as bytes, spliced without a UTF-8 round trip. Made for each
 * list, not remembered: kept for each cached object, they were one more copy
 * of every listed object (scale bench, 15,000 pods: ~70 MiB), to save a
 * splice that costs about what the list's own copy of the bytes does.
 */
export function encodedJsonBytes(kv: KeyValue): Buffer {
  const value = Buffer.from(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength);
  const legacy = value.subarray(0, LEGACY_PREFIX_BYTES.length).equals(LEGACY_PREFIX_BYTES);
  const at = legacy ? -1 : value.indexOf(RV_PLACEHOLDER_BYTES);
  return at > 0
    ? Buffer.concat([value.subarray(0, at), Buffer.from(`"resourceVersion":"${kv.modRevision}"`), value.subarray(at + RV_PLACEHOLDER_BYTES.length)])
    : Buffer.from(encodedJson(kv));
}

const protobufListForms = new WeakMap<KeyValue, Buffer>();

/**
 * The object's protobuf message as a list item (`messageType`, e.g. "Pod"),
 * remembered for the KeyValue (an encode costs far more than a splice): a
 * list from the watch cache encodes each unchanged object once, not once
 * per list.
 */
export function encodedProtobufBytes(kv: KeyValue, messageType: string): Buffer {
  const known = protobufListForms.get(kv);
  if (known) return known;
  const out = encodeProtobufListItem(decodeObject(kv), messageType);
  protobufListForms.set(kv, out);
  return out;
}

/*
 * One decode per stored value, shared by everyone who holds the same bytes:
 * on SQLite the write that stored them, the watch cache and every watcher
 * get the very same value (the cache also hands an event the previous value
 * it holds), so a write is parsed once, not once by its writer, once per
 * watch event and again by the next update. Keyed by the bytes, not the
 * KeyValue, because each of them builds its own KeyValue around them; a
 * value read at another revision (a deletion's) shares all but metadata.
 * Shared objects are read-only: whoever needs to change one copies it
 * (cloneJson).
 *
 * Only the values of the last DECODED_VALUES writes are kept: their readers
 * (the write, the watch cache, watchers at most a watcher buffer behind, the
 * next update) ask within moments. Kept as long as the watch cache keeps the
 * bytes, a decoded object (several times the size of its JSON) of every
 * object and of every event in the window, with its encoded watch events,
 * was most of the API server's heap (scale bench, 15,000 pods: heap after GC
 * 947 MiB, 258 MiB with this bound). An older value is parsed again when
 * asked for.
 */
interface Decoded {
  revision: number;
  object: KubeObject;
  other?: Decoded;
}
export const DECODED_VALUES = 8192;
const decoded = new RecentMap<Uint8Array, Decoded>(DECODED_VALUES);
let freezeShared = false;

/** Tests: deep-freeze every shared decoded object, so code that changes one fails loudly. */
export function freezeSharedObjects(on: boolean): void {
  freezeShared = on;
}

/** decodeObject, once per stored value and revision; the result is shared and must not be changed. */
export function decodeShared(kv: KeyValue, revision = kv.modRevision): KubeObject {
  const first = decoded.get(kv.value);
  for (let d = first; d; d = d.other) if (d.revision === revision) return d.object;
  const object = first ? { ...first.object, metadata: { ...first.object.metadata, resourceVersion: String(revision) } } : decodeObject(kv, revision);
  if (freezeShared) deepFreeze(object);
  decoded.set(kv.value, { revision, object, ...(first ? { other: first } : {}) });
  return object;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  for (const v of Object.values(value)) deepFreeze(v);
  Object.freeze(value);
}

/* The kv each freshly written object was decoded from: a write's response can then be the stored bytes, not a second encoding. */
const written = new WeakMap<KubeObject, KeyValue>();

/** decodeShared of what a write just stored (read-only), remembered for writtenJson. */
export function decodeWritten(kv: KeyValue, revision = kv.modRevision): KubeObject {
  const obj = decodeShared(kv, revision);
  if (!written.has(obj)) written.set(obj, revision === kv.modRevision ? kv : { ...kv, modRevision: revision });
  return obj;
}

/** The stored JSON (resourceVersion spliced in) of an object that came from decodeWritten, or undefined. Holders must not have changed it. */
export function writtenJson(obj: KubeObject): string | undefined {
  const kv = written.get(obj);
  return kv && encodedJson(kv);
}
