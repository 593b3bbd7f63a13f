import { context, trace } from '@opentelemetry/api';
import { ATTR } from '../../trace/attributes.js';
import { currentCause, startSpan } from '../../trace/spans.js';
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
    if (!currentCause()) return write();
    const span = startSpan(`storage ${verb}`, { hop: 'storage', attributes: { 'db.operation.name': verb, 'db.key': key } });
    const cause = span.spanContext();
    causes.begin(key, cause);
    try {
      const res = await context.with(trace.setSpan(context.active(), span), write);
      if (res.succeeded) {
        span.setAttribute(ATTR.resourceVersion, String(res.revision));
        causes.record(res.revision, key, verb, span.spanContext());
      } else {
        span.setAttribute('skiff.storage.conflict', true);
      }
      return res;
    } finally {
      causes.end(key, cause);
      span.end();
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
