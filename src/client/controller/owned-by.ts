import type { ApiObject } from '../rest/api-object.js';

/** Maps a changed object to the keys of the objects to reconcile. */
export type EnqueueFunc<T> = (obj: T) => string[];

/**
 * Enqueues the controlling owner (ownerReference with controller=true) of a
 * changed object, if it is of `kind` (and `group`, when given). Owners share
 * the namespace of what they own.
 */
export function ownedBy<T extends ApiObject>(kind: string, group?: string): EnqueueFunc<T> {
  return (obj) => {
    const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
    if (!ref || ref.kind !== kind) return [];
    if (group !== undefined) {
      const refGroup = ref.apiVersion.includes('/') ? ref.apiVersion.slice(0, ref.apiVersion.indexOf('/')) : '';
      if (refGroup !== group) return [];
    }
    const ns = obj.metadata?.namespace;
    return [ns ? `${ns}/${ref.name}` : ref.name];
  };
}
