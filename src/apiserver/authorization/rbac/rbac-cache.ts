import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { Logger } from '../../../machinery/logger.js';
import type { ApiRegistry } from '../../api-registry.js';
import { runStoreInformer, type StoreEventHandler } from '../../registry/store-informer.js';
import { InMemoryRbacObjects, type RbacObjects } from './rbac-objects.js';

const KINDS = [
  ['roles', 'Role'],
  ['clusterroles', 'ClusterRole'],
  ['rolebindings', 'RoleBinding'],
  ['clusterrolebindings', 'ClusterRoleBinding'],
] as const;

/**
 * The RBAC objects in memory, kept current by one storage watch per kind
 * (the API server's equivalent of upstream's RBAC informers). Authorization
 * reads it synchronously; a compacted watch relists.
 */
export class RbacCache implements RbacObjects {
  private readonly objects = new InMemoryRbacObjects();
  private readonly synced: Promise<void>[] = [];
  private running: Promise<void>[] = [];

  getRole(namespace: string, name: string): Role | undefined {
    return this.objects.getRole(namespace, name);
  }
  getClusterRole(name: string): ClusterRole | undefined {
    return this.objects.getClusterRole(name);
  }
  listRoleBindings(namespace: string): readonly RoleBinding[] {
    return this.objects.listRoleBindings(namespace);
  }
  listClusterRoleBindings(): readonly ClusterRoleBinding[] {
    return this.objects.listClusterRoleBindings();
  }

  /** Starts the watches; `synced()` resolves once every kind has been listed. */
  start(registry: ApiRegistry, logger: Logger, signal: AbortSignal): void {
    for (const [resource, kind] of KINDS) {
      const store = registry.lookup('rbac.authorization.k8s.io', 'v1', resource);
      if (!store) throw new Error(`${resource} are not served`);
      let markSynced!: () => void;
      this.synced.push(new Promise<void>((r) => (markSynced = r)));
      const objects = this.objects;
      const handler: StoreEventHandler = {
        replace(items) {
          objects.clear(kind);
          for (const item of items) objects.put(kind, item as unknown as Role);
        },
        upsert: (obj) => objects.put(kind, obj as unknown as Role),
        remove: (obj) => objects.delete(kind, obj.metadata?.namespace ?? '', obj.metadata?.name ?? ''),
      };
      this.running.push(runStoreInformer(store, handler, { logger, signal, onSynced: () => markSynced() }));
    }
  }

  async waitForSync(): Promise<void> {
    await Promise.all(this.synced);
  }

  /** Resolves once the watches have stopped (after the start signal aborted). */
  async stopped(): Promise<void> {
    await Promise.all(this.running);
    this.running = [];
  }
}
