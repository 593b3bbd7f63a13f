import type { KubeObject } from '../../api/object.js';
import type { APIService } from '../../api/types/apiregistration/v1.js';
import type { Logger } from '../../machinery/logger.js';
import type { RegistryStore } from '../registry/registry-store.js';
import { runStoreInformer } from '../registry/store-informer.js';

/**
 * The APIServices in memory, kept current by the API server's own watch
 * (upstream's lister), indexed by group/version. `onChange` hears the name of
 * every APIService added, changed or removed.
 */
export class ApiServiceView {
  private readonly byName = new Map<string, APIService>();
  private byGroupVersion = new Map<string, APIService>();

  constructor(private readonly onChange: (name: string) => void = () => {}) {}

  run(store: RegistryStore, logger: Logger, signal: AbortSignal): Promise<void> {
    const nameOf = (o: KubeObject) => o.metadata?.name ?? '';
    return runStoreInformer(
      store,
      {
        replace: (items) => {
          const before = [...this.byName.keys()];
          this.byName.clear();
          for (const o of items) this.byName.set(nameOf(o), o as unknown as APIService);
          this.reindex();
          for (const name of new Set([...before, ...this.byName.keys()])) this.onChange(name);
        },
        upsert: (o) => {
          this.byName.set(nameOf(o), o as unknown as APIService);
          this.reindex();
          this.onChange(nameOf(o));
        },
        remove: (o) => {
          this.byName.delete(nameOf(o));
          this.reindex();
          this.onChange(nameOf(o));
        },
      },
      { logger, signal },
    );
  }

  get(name: string): APIService | undefined {
    return this.byName.get(name);
  }

  all(): APIService[] {
    return [...this.byName.values()];
  }

  /** The APIService of a group/version, if one is registered. */
  forGroupVersion(group: string, version: string): APIService | undefined {
    return this.byGroupVersion.get(`${group}/${version}`);
  }

  /** Replaces the contents directly (unit tests without a server). */
  set(items: APIService[]): void {
    this.byName.clear();
    for (const s of items) this.byName.set(s.metadata?.name ?? '', s);
    this.reindex();
  }

  private reindex(): void {
    const index = new Map<string, APIService>();
    for (const s of this.byName.values()) index.set(`${s.spec?.group ?? ''}/${s.spec?.version ?? ''}`, s);
    this.byGroupVersion = index;
  }
}

/** Served by another server through a Service (not by this one). */
export function isRemote(s: APIService | undefined): s is APIService & { spec: { service: NonNullable<NonNullable<APIService['spec']>['service']> } } {
  return Boolean(s?.spec?.service);
}

export function isAvailable(s: APIService): boolean {
  return (s.status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True');
}
