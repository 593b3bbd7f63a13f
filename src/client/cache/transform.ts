import type { ApiObject } from '../rest/api-object.js';

/**
 * Changes an object before an informer caches it and hands it to handlers
 * (client-go's TransformFunc, set with SetTransform or the factory's
 * WithTransform): the place to drop what no handler reads, so the cache
 * keeps less. It may return a new object; it must not change its argument,
 * which other watchers of the same stream may share.
 */
export type TransformFunc<T> = (obj: T) => T;

/**
 * Drops metadata.managedFields, as kube-controller-manager's and
 * kube-scheduler's informers do: the field-ownership records are often the
 * largest part of an object and no controller reads them. An update sent
 * from such a copy keeps the stored records (the server takes an update
 * without managedFields as "unchanged").
 */
export function stripManagedFields<T extends ApiObject>(obj: T): T {
  const meta = obj.metadata;
  if (meta?.managedFields === undefined) return obj;
  const { managedFields: _, ...metadata } = meta;
  return { ...obj, metadata };
}
