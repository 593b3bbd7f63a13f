import type { ApiObject } from '../rest/api-object.js';
import type { Store } from './store.js';

/** Computes the index values of an object, e.g. its namespace or its node name. */
export type IndexFunc<T> = (obj: T) => string[];

export type Indexers<T> = Record<string, IndexFunc<T>>;

export const NAMESPACE_INDEX = 'namespace';

export function namespaceIndexFunc(obj: ApiObject): string[] {
  return [obj.metadata?.namespace ?? ''];
}

/** A Store with secondary indexes. */
export interface Indexer<T> extends Store<T> {
  /** Objects sharing any index value with `obj` under index `name`. */
  index(name: string, obj: T): T[];
  byIndex(name: string, value: string): T[];
  indexKeys(name: string, value: string): string[];
  listIndexFuncValues(name: string): string[];
  addIndexers(indexers: Indexers<T>): void;
}
