import type { ResourceInfo } from '../api/resource-info.js';
import { RESOURCES } from '../api/resources.js';
import type { Storage } from '../storage/storage.js';
import { RegistryStore } from './registry/registry-store.js';
import { strategyFor, type StrategyDeps } from './registry/strategies/index.js';

/** One RegistryStore per served resource, looked up by group/version/resource. */
export class ApiRegistry {
  private readonly stores = new Map<string, RegistryStore>();

  constructor(storage: Storage, deps: Omit<StrategyDeps, 'storage'>, clock?: () => Date) {
    for (const info of RESOURCES) {
      // events.k8s.io/v1 Events are kept apart from core/v1 Events (no conversion between the two yet)
      const keyRoot = info.group === 'events.k8s.io' ? `/registry/${info.group}/${info.resource}/` : undefined;
      const store = new RegistryStore({ info, storage, strategy: strategyFor(info, { ...deps, storage }), keyRoot, clock });
      this.stores.set(id(info.group, info.version, info.resource), store);
    }
  }

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

  /** Serves a resource from now on (custom resources come and go at run time). */
  add(store: RegistryStore): void {
    this.stores.set(id(store.info.group, store.info.version, store.info.resource), store);
  }

  /** Stops serving a resource; true when it was served. */
  remove(group: string, version: string, resource: string): boolean {
    return this.stores.delete(id(group, version, resource));
  }

  /** What is served now: discovery's source. */
  resources(): ResourceInfo[] {
    return [...this.stores.values()].map((s) => s.info);
  }
}

function id(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
