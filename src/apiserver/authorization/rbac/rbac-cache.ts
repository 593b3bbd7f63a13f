import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { Logger } from '../../../machinery/logger.js';
import { CompactedError } from '../../../storage/errors.js';
import type { ApiRegistry } from '../../api-registry.js';
import { decodeObject } from '../../registry/codec.js';
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
      const loop = async () => {
        while (!signal.aborted) {
          try {
            const list = await store.list('', {});
            this.objects.clear(kind);
            for (const item of list.items) this.objects.put(kind, item as unknown as Role);
            markSynced();
            const from = Number(list.metadata.resourceVersion) + 1;
            for await (const ev of store.backing.watch(store.prefix(''), { startRevision: from, signal })) {
              if (ev.type === 'DELETE') {
                const old = decodeObject(ev.prevKv ?? ev.kv);
                this.objects.delete(kind, old.metadata?.namespace ?? '', old.metadata?.name ?? '');
              } else {
                this.objects.put(kind, decodeObject(ev.kv) as unknown as Role);
              }
            }
          } catch (err) {
            if (signal.aborted) return;
            if (!(err instanceof CompactedError)) logger.warn('RBAC watch failed; relisting', { resource, error: String(err) });
            await new Promise((r) => setTimeout(r, 200));
          }
        }
      };
      this.running.push(loop());
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
