import type { WatchCause } from '../rest/watch-event.js';
import type { ApiObject } from '../rest/api-object.js';

/** Maps an object to its cache key. */
export type KeyFunc<T> = (obj: T) => string;

/** `namespace/name`, or just `name` for cluster-scoped objects (client-go's MetaNamespaceKeyFunc). */
export function metaNamespaceKey(obj: ApiObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/** Inverse of metaNamespaceKey. */
export function splitMetaNamespaceKey(key: string): { namespace?: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** A keyed collection of objects: what a Reflector fills and a Lister reads. */
export interface Store<T> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
  list(): T[];
  listKeys(): string[];
  getByKey(key: string): T | undefined;
  /**
   * Swaps the whole content for `items`, listed at `resourceVersion`; with
   * tracing, `listed` names each item's kind and the causes of their writes.
   */
  replace(items: T[], resourceVersion: string, listed?: ListedCauses): void;
}

/** What a list said of its items' writes (skiff only): the kind listed and, per resourceVersion, the span that caused the write. */
export interface ListedCauses {
  kind?: string;
  causes: Record<string, WatchCause>;
}
