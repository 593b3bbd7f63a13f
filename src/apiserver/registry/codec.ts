import type { KubeObject } from '../../api/object.js';
import { internalError } from '../../machinery/api-error.js';
import type { KeyValue } from '../../storage/storage.js';

/**
 * Objects are stored as JSON without metadata.resourceVersion; the storage
 * revision of the key *is* the resourceVersion and is set on every read.
 */
export function encodeObject(obj: KubeObject): Uint8Array {
  const meta = obj.metadata;
  if (meta?.resourceVersion === undefined) return Buffer.from(JSON.stringify(obj));
  const { resourceVersion: _rv, ...rest } = meta;
  return Buffer.from(JSON.stringify({ ...obj, metadata: rest }));
}

export function decodeObject(kv: KeyValue, revision = kv.modRevision): KubeObject {
  let obj: KubeObject;
  try {
    obj = JSON.parse(Buffer.from(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength).toString('utf8')) as KubeObject;
  } catch {
    throw internalError(`stored object at ${kv.key} is not valid JSON`);
  }
  obj.metadata = { ...obj.metadata, resourceVersion: String(revision) };
  return obj;
}
