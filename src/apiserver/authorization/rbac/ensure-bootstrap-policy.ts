import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { KubeObject } from '../../../api/object.js';
import { ApiError } from '../../../machinery/api-error.js';
import type { Logger } from '../../../machinery/logger.js';
import type { ApiRegistry } from '../../api-registry.js';
import { BOOTSTRAP_CLUSTER_ROLES, BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_ROLES, BOOTSTRAP_ROLE_BINDINGS } from './bootstrap-policy.js';
import { CONTROLLER_CLUSTER_ROLE_BINDINGS, CONTROLLER_CLUSTER_ROLES, CONTROLLER_ROLE_BINDINGS, CONTROLLER_ROLES } from './controller-policy.js';
import { NODE_BOOTSTRAP_CLUSTER_ROLE_BINDINGS, NODE_BOOTSTRAP_ROLE_BINDINGS, NODE_BOOTSTRAP_ROLES } from './node-bootstrap-policy.js';
import { reconcileBinding, reconcileRole, type Reconciliation } from './reconcile-policy.js';

const G = 'rbac.authorization.k8s.io';

/**
 * Reconciles upstream's default RBAC policy into storage at start (upstream's
 * EnsureRBACPolicy post-start hook): written directly through the registry,
 * as the API server's own privileged loopback client would.
 */
export async function ensureBootstrapPolicy(registry: ApiRegistry, logger: Logger): Promise<void> {
  await ensureAll(registry, logger, 'clusterroles', [...BOOTSTRAP_CLUSTER_ROLES, ...CONTROLLER_CLUSTER_ROLES], (e: ClusterRole | undefined, x) => reconcileRole(e, x));
  await ensureAll(registry, logger, 'clusterrolebindings', [...BOOTSTRAP_CLUSTER_ROLE_BINDINGS, ...CONTROLLER_CLUSTER_ROLE_BINDINGS, ...NODE_BOOTSTRAP_CLUSTER_ROLE_BINDINGS], (e: ClusterRoleBinding | undefined, x) => reconcileBinding(e, x));
  await ensureAll(registry, logger, 'roles', [...BOOTSTRAP_ROLES, ...CONTROLLER_ROLES, ...NODE_BOOTSTRAP_ROLES], (e: Role | undefined, x) => reconcileRole(e, x));
  await ensureAll(registry, logger, 'rolebindings', [...BOOTSTRAP_ROLE_BINDINGS, ...CONTROLLER_ROLE_BINDINGS, ...NODE_BOOTSTRAP_ROLE_BINDINGS], (e: RoleBinding | undefined, x) => reconcileBinding(e, x));
}

async function ensureAll<T extends { metadata?: { name?: string; namespace?: string } }>(
  registry: ApiRegistry,
  logger: Logger,
  resource: string,
  expectedObjects: readonly T[],
  reconcile: (existing: T | undefined, expected: T) => Reconciliation<T>,
): Promise<void> {
  const store = registry.lookup(G, 'v1', resource);
  if (!store) throw new Error(`the ${resource}.${G} resource is not served`);
  for (const expected of expectedObjects) {
    const namespace = expected.metadata?.namespace ?? '';
    const name = expected.metadata?.name ?? '';
    const asObject = (o: T) => o as unknown as KubeObject;
    let recreate = false;
    await store.guaranteedUpdate(
      namespace,
      name,
      (current) => {
        const r = reconcile(current as unknown as T | undefined, expected);
        if (r.action === 'recreate') recreate = true;
        if (r.action === 'none' || r.action === 'recreate') return current ?? asObject(expected);
        logger.info(r.action === 'create' ? 'created default RBAC object' : 'reconciled default RBAC object', { resource, namespace, name });
        return asObject(r.object);
      },
      { dryRun: false, allowCreate: true },
    );
    if (recreate) {
      // a binding's roleRef cannot change: delete it and create the expected one
      await store.delete(namespace, name, { dryRun: false }).catch((err: unknown) => {
        if (!ApiError.is(err, 'NotFound')) throw err;
      });
      await store.create(structuredClone(asObject(expected)), { dryRun: false });
      logger.info('recreated default RBAC binding', { resource, namespace, name });
    }
  }
}
