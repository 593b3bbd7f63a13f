import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from 'kubernetes-types/apiextensions/v1.js';
import { ALL_VERBS, type ResourceInfo } from '../../api/resource-info.js';
import type { Storage } from '../../storage/storage.js';
import type { ApiRegistry } from '../api-registry.js';
import { RegistryStore } from '../registry/registry-store.js';
import { customResourceModels } from './custom-resource-models.js';
import { customResourceStrategy } from './custom-resource-strategy.js';
import { customResourceTable } from './custom-resource-table.js';
import { versionSchema } from './schema/json-schema.js';
import { prune } from './schema/pruning.js';
import type { KubeObject } from '../../api/object.js';
import { compareKubeAwareVersions } from '../../api/version-priority.js';
import { crdConverter } from './crd-converter.js';
import { ConvertingStorage } from './converting-storage.js';
import type { Clock } from '../../base/clock.js';

/** Facts handlers need about a custom resource beyond its ResourceInfo. */
export interface CustomResourceFacts {
  version: CustomResourceDefinitionVersion;
}

const facts = new WeakMap<object, CustomResourceFacts>();

/** The CRD version behind a served resource, or undefined for built-ins. */
export function customResourceFacts(info: ResourceInfo): CustomResourceFacts | undefined {
  return facts.get(info);
}

/** Paths of the fields a custom resource's schema does not declare (what pruning would drop). */
export function customResourceUnknownFields(obj: KubeObject, f: CustomResourceFacts): string[] {
  const schema = versionSchema(f.version);
  return schema ? prune(structuredClone(obj) as Record<string, unknown>, schema) : [];
}

/**
 * Puts the resources of established CRDs into the live ApiRegistry and takes
 * them out again when their CRD changes or goes away: one RegistryStore per
 * CRD (its storage version, under `/registry/<group>/<plural>/`), built like
 * any built-in's, with the CRD's schema in its strategy, its printer
 * columns as its table and its schema as its OpenAPI definitions. A thin adapter: the registry does the serving.
 */
export class CustomResourceServing {
  private readonly served = new Map<string, ResourceInfo[]>();
  private readonly crds = new Map<string, CustomResourceDefinition>();

  constructor(private readonly opts: { registry: ApiRegistry; storage: Storage; clock?: Clock }) {}

  sync(crd: CustomResourceDefinition | undefined, name: string): void {
    if (crd) this.crds.set(name, crd);
    else this.crds.delete(name);
    for (const info of this.served.get(name) ?? []) this.opts.registry.remove(info.group, info.version, info.resource);
    this.served.delete(name);
    if (!crd || crd.metadata?.deletionTimestamp || !isEstablished(crd)) return;
    const served: ResourceInfo[] = [];
    for (const store of this.storesFor(crd)) {
      const { group, version, resource } = store.info;
      // a built-in is never shadowed
      if (this.opts.registry.lookup(group, version, resource)) continue;
      this.opts.registry.add(store);
      served.push(store.info);
    }
    this.served.set(name, served);
  }

  /** Deletes every stored custom resource of a CRD; resolves to how many are left (finalizers may hold some). */
  async deleteAll(crd: CustomResourceDefinition): Promise<number> {
    let left = 0;
    for (const store of this.storesFor(crd, true)) {
      const list = await store.list('', {});
      for (const obj of list.items) {
        const outcome = await store
          .delete(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '', { dryRun: false })
          .catch((err: unknown) => ((err as { code?: number }).code === 404 ? { deleted: true } : Promise.reject(err)));
        if (!outcome.deleted) left++;
      }
    }
    return left;
  }

  /**
   * One store per served version (all under the same keys); with several
   * versions each reads and writes through a ConvertingStorage, so objects
   * are stored in the storage version and served in the requested one.
   * `storageOnly` gives just the storage version's store (for cleanup).
   */
  private storesFor(crd: CustomResourceDefinition, storageOnly = false): RegistryStore[] {
    const names = crd.status?.acceptedNames;
    const storage = crd.spec.versions.find((v) => v.storage);
    if (!names?.plural || !names.kind || !storage) return [];
    const versions = storageOnly ? [storage] : crd.spec.versions.filter((v) => v.served).sort((a, b) => compareKubeAwareVersions(a.name, b.name));
    const convert = crd.spec.versions.length > 1 ? crdConverter(crd, this.opts.registry) : undefined;
    const keyRoot = `/registry/${crd.spec.group}/${names.plural}/`;
    return versions.map((version) => {
      const subresources = [version.subresources?.status ? 'status' : '', version.subresources?.scale ? 'scale' : ''].filter(Boolean);
      const info: ResourceInfo = {
        group: crd.spec.group,
        version: version.name,
        kind: names.kind,
        listKind: names.listKind ?? `${names.kind}List`,
        resource: names.plural,
        singular: names.singular ?? names.kind.toLowerCase(),
        namespaced: crd.spec.scope === 'Namespaced',
        shortNames: names.shortNames ?? [],
        categories: names.categories ?? [],
        subresources,
        verbs: ALL_VERBS,
      };
      facts.set(info, { version });
      return new RegistryStore({
        info,
        storage: convert ? new ConvertingStorage(this.opts.storage, convert, version.name, storage.name) : this.opts.storage,
        strategy: customResourceStrategy(info, version),
        keyRoot,
        clock: this.opts.clock,
        table: customResourceTable(version.additionalPrinterColumns),
        models: customResourceModels(info, version),
      });
    });
  }

  /** Converts a custom resource to another served version of its CRD (admission webhooks' matchPolicy Equivalent). */
  async convert(obj: KubeObject, group: string, version: string): Promise<KubeObject> {
    const crd = [...this.crds.values()].find((c) => c.spec.group === group && c.status?.acceptedNames?.kind === obj.kind);
    if (!crd || crd.spec.versions.length < 2) return { ...obj, apiVersion: `${group}/${version}` };
    const [converted] = await crdConverter(crd, this.opts.registry)([obj], version);
    return converted;
  }
}

function isEstablished(crd: CustomResourceDefinition): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
}
