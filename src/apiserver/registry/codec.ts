import type { KubeObject } from '../../api/object.js';
import { internalError } from '../../machinery/api-error.js';
import type { KeyValue } from '../../storage/storage.js';

/**
 * Objects are stored as JSON without metadata.resourceVersion: the storage
 * revision of the key *is* the resourceVersion, set on every read. metadata
 * is written first, so a stored value can be turned into the object's JSON
 * by splicing the resourceVersion in, without parsing it (see encodedJson).
 */
const METADATA_PREFIX = '{"metadata":{';

export function encodeObject(obj: KubeObject): Uint8Array {
  const { metadata, ...rest } = obj;
  const { resourceVersion: _rv, ...meta } = metadata ?? {};
  return Buffer.from(JSON.stringify({ metadata: meta, ...rest }));
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
  if (s.startsWith(METADATA_PREFIX) && s[METADATA_PREFIX.length] === '"') {
    return `${METADATA_PREFIX}"resourceVersion":"${revision}",${s.slice(METADATA_PREFIX.length)}`;
  }
  return JSON.stringify(decodeObject(kv, revision));
}
