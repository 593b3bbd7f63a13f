import type { ResourceInfo } from '../api/resource-info.js';
import type { RegistryStore } from './registry/registry-store.js';

/**
 * The live table of served resources: one RegistryStore per
 * group/version/resource. Routing, discovery, OpenAPI, tables and storage
 * keys all read it, and it gains and loses resources while the server runs:
 * built-ins are added at start-up through `add`, the same call custom
 * resources use when their CRD becomes Established.
 *
 * Every change bumps `generation`; documents derived from the table
 * (discovery, OpenAPI) are memoized per generation with `derived`, so they
 * are rebuilt exactly when the set of resources changed.
 */
export class ApiRegistry {
  private readonly stores = new Map<string, RegistryStore>();
  private gen = 0;
  private memo = new Map<string, unknown>();

  lookup(group: string, version: string, resource: string): RegistryStore | undefined {
    return this.stores.get(id(group, version, resource));
  }

  get namespaces(): RegistryStore {
    return this.stores.get(id('', 'v1', 'namespaces'))!;
  }

  all(): RegistryStore[] {
    return [...this.stores.values()];
  }

  storeFor(info: ResourceInfo): RegistryStore {
    return this.stores.get(id(info.group, info.version, info.resource))!;
  }

  /** Serves a resource from now on, replacing one of the same group/version/resource. */
  add(store: RegistryStore): void {
    this.stores.set(id(store.info.group, store.info.version, store.info.resource), store);
    this.changed();
  }

  /** Stops serving a resource; true when it was served. */
  remove(group: string, version: string, resource: string): boolean {
    const removed = this.stores.delete(id(group, version, resource));
    if (removed) this.changed();
    return removed;
  }

  /** What is served now: discovery's and OpenAPI's source. */
  resources(): ResourceInfo[] {
    return [...this.stores.values()].map((s) => s.info);
  }

  /** Increases whenever a resource is added or removed. */
  get generation(): number {
    return this.gen;
  }

  /** A value computed from the table, kept until the table next changes. */
  derived<T>(key: string, produce: () => T): T {
    if (this.memo.has(key)) return this.memo.get(key) as T;
    const value = produce();
    this.memo.set(key, value);
    return value;
  }

  private changed(): void {
    this.gen++;
    this.memo = new Map();
  }
}

function id(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
