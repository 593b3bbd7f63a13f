import type { ApiObject } from '../rest/api-object.js';
import { metaNamespaceKey, type KeyFunc } from './store.js';
import { NAMESPACE_INDEX, namespaceIndexFunc, type Indexer, type Indexers } from './indexer.js';

/** No such index was registered. */
export class UnknownIndexError extends Error {
  override readonly name = 'UnknownIndexError';
  constructor(readonly index: string) {
    super(`index "${index}" does not exist`);
  }
}

/**
 * An Indexer over Maps: objects by key, and per index a map from value to the
 * set of keys. Comes with the namespace index unless told otherwise.
 */
export class MapIndexer<T extends ApiObject = ApiObject> implements Indexer<T> {
  private readonly items = new Map<string, T>();
  private readonly indexers: Indexers<T> = {};
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private rv = '';

  constructor(
    indexers: Indexers<T> = { [NAMESPACE_INDEX]: namespaceIndexFunc },
    readonly keyFunc: KeyFunc<T> = metaNamespaceKey,
  ) {
    this.addIndexers(indexers);
  }

  /** The resourceVersion passed to the last replace. */
  get resourceVersion(): string {
    return this.rv;
  }

  add(obj: T): void {
    this.put(obj);
  }

  update(obj: T): void {
    this.put(obj);
  }

  delete(obj: T): void {
    this.deleteKey(this.keyFunc(obj));
  }

  deleteKey(key: string): void {
    const old = this.items.get(key);
    if (old === undefined) return;
    this.unindex(key, old);
    this.items.delete(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  replace(items: T[], resourceVersion: string): void {
    this.items.clear();
    for (const idx of this.indices.values()) idx.clear();
    for (const obj of items) this.put(obj);
    this.rv = resourceVersion;
  }

  index(name: string, obj: T): T[] {
    const keys = new Set<string>();
    for (const v of this.indexFunc(name)(obj)) for (const k of this.indexKeys(name, v)) keys.add(k);
    return [...keys].map((k) => this.items.get(k)!);
  }

  byIndex(name: string, value: string): T[] {
    return this.indexKeys(name, value).map((k) => this.items.get(k)!);
  }

  indexKeys(name: string, value: string): string[] {
    this.indexFunc(name);
    return [...(this.indices.get(name)?.get(value) ?? [])];
  }

  listIndexFuncValues(name: string): string[] {
    this.indexFunc(name);
    return [...(this.indices.get(name)?.keys() ?? [])];
  }

  addIndexers(indexers: Indexers<T>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indexers[name]) throw new RangeError(`indexer "${name}" already exists`);
      this.indexers[name] = fn;
      const idx = new Map<string, Set<string>>();
      this.indices.set(name, idx);
      for (const [key, obj] of this.items) for (const v of fn(obj)) addTo(idx, v, key);
    }
  }

  private put(obj: T): void {
    const key = this.keyFunc(obj);
    const old = this.items.get(key);
    this.items.set(key, obj);
    for (const name in this.indexers) {
      const fn = this.indexers[name];
      const idx = this.indices.get(name)!;
      const values = fn(obj);
      if (old !== undefined) {
        // most updates (a status write) keep every index value: nothing to move
        const before = fn(old);
        if (sameValues(before, values)) continue;
        for (const v of before) removeFrom(idx, v, key);
      }
      for (const v of values) addTo(idx, v, key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const name in this.indexers) {
      const idx = this.indices.get(name)!;
      for (const v of this.indexers[name](obj)) removeFrom(idx, v, key);
    }
  }

  private indexFunc(name: string): (obj: T) => string[] {
    const fn = this.indexers[name];
    if (!fn) throw new UnknownIndexError(name);
    return fn;
  }
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function removeFrom(idx: Map<string, Set<string>>, value: string, key: string): void {
  const set = idx.get(value);
  set?.delete(key);
  if (set?.size === 0) idx.delete(value);
}

function addTo(idx: Map<string, Set<string>>, value: string, key: string): void {
  let set = idx.get(value);
  if (!set) idx.set(value, (set = new Set()));
  set.add(key);
}
