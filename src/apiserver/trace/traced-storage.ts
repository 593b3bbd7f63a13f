import type { Attributes } from '@opentelemetry/api';
import { ATTR } from '../../trace/attributes.js';
import { leafContext, recordLeafSpan } from '../../trace/leaf-span.js';
import { recordingSpan } from '../../trace/spans.js';
import { tracingEnabled } from '../../trace/tracing.js';
import type { DeleteResult, Storage, WriteResult } from '../../storage/storage.js';
import type { WriteCause, WriteCauses } from './write-causes.js';

/**
 * Storage with the storage commit of every write traced: a span per
 * create/update/delete carrying the resulting resourceVersion, recorded in
 * the side store as the write's cause (what skiff's watchers are told).
 * Reads, watches and everything else pass through untouched.
 */
export function tracedStorage(storage: Storage, causes: WriteCauses): Storage {
  if (!tracingEnabled()) return storage;
  const commit = async <R extends WriteResult | DeleteResult>(verb: WriteCause['verb'], key: string, write: () => Promise<R>): Promise<R> => {
    // only writes that are part of a recorded journey are worth a span
    const parent = recordingSpan();
    if (!parent) return write();
    // a leaf of the request's span (no live span, no context switch), named before the commit as the write's cause
    const cause = leafContext(parent);
    const start = performance.now();
    const attributes: Attributes = { 'db.operation.name': verb, 'db.key': key };
    let error: unknown;
    causes.begin(key, cause);
    try {
      const res = await write();
      if (res.succeeded) {
        attributes[ATTR.resourceVersion] = String(res.revision);
        causes.record(res.revision, key, verb, cause);
      } else {
        attributes['skiff.storage.conflict'] = true;
      }
      return res;
    } catch (err) {
      error = err ?? 'failed';
      throw err;
    } finally {
      causes.end(key, cause);
      recordLeafSpan(parent, `storage ${verb}`, { hop: 'storage', start, attributes, error, context: cause });
    }
  };
  const overrides: Partial<Storage> = {
    create: (key, value) => commit('create', key, () => storage.create(key, value)),
    update: (key, value, expected) => commit('update', key, () => storage.update(key, value, expected)),
    delete: (key, expected) => commit('delete', key, () => storage.delete(key, expected)),
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(storage, {
    get(target, prop) {
      if (prop in overrides) return overrides[prop as keyof Storage];
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      let fn = bound.get(prop);
      if (!fn) bound.set(prop, (fn = (value as (...args: unknown[]) => unknown).bind(target)));
      return fn;
    },
  });
}
