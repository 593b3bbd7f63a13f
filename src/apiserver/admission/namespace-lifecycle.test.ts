import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/object.js';
import { ApiError, notFound } from '../../machinery/api-error.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes } from './admission.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';

const active = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, status: { phase: 'Active' } });
const terminating = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, deletionTimestamp: '2026-11-24T23:00:00Z' }, status: { phase: 'Terminating' } });

/** Namespaces as the watch cache holds them (`cached`) and as the storage does (`stored`), with read counts. */
function namespaces() {
  const cached = new Map<string, KubeObject>();
  const stored = new Map<string, KubeObject>();
  const reads = { cache: 0, storage: 0 };
  const lookup = (from: Map<string, KubeObject>, name: string) => from.get(name) ?? Promise.reject(notFound({ group: '', resource: 'namespaces' }, name));
  const store = {
    getShared: async (_: string, name: string) => {
      reads.cache++;
      return cached.has(name) ? cached.get(name)! : lookup(stored, name);
    },
    get: async (_: string, name: string) => {
      reads.storage++;
      return lookup(stored, name);
    },
  } as unknown as RegistryStore;
  return { cached, stored, reads, store };
}

function attrs(over: Partial<AdmissionAttributes>): AdmissionAttributes {
  return {
    operation: 'CREATE', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' }, subresource: '',
    namespace: 'app', name: 'c', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'app' } }, dryRun: false, user: { name: 'jane', groups: [] }, ...over,
  };
}

const deleteNamespace = (name: string) =>
  attrs({ operation: 'DELETE', kind: { group: '', version: 'v1', kind: 'Namespace' }, resource: { group: '', version: 'v1', resource: 'namespaces' }, namespace: '', name, object: undefined });

async function forbidden(p: NamespaceLifecycle, a: AdmissionAttributes): Promise<ApiError> {
  try {
    await p.admit(a);
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err;
  }
  assert.fail('admitted');
}

describe('NamespaceLifecycle', () => {
  it('reads namespaces as the cache holds them, and answers NotFound only when the storage has none either', async () => {
    const ns = namespaces();
    ns.cached.set('app', active('app'));
    const plugin = new NamespaceLifecycle(() => ns.store);
    await plugin.admit(attrs({}));
    assert.deepEqual(ns.reads, { cache: 1, storage: 0 });
    const missing = await forbidden(plugin, attrs({ namespace: 'gone' }));
    assert.equal(missing.code, 404);
    assert.equal(missing.message, 'namespaces "gone" not found');
  });

  it('reads the storage for 30 s after admitting a deletion the cache may not show yet', async () => {
    const ns = namespaces();
    let now = 1_000_000;
    const plugin = new NamespaceLifecycle(() => ns.store, () => now);
    ns.cached.set('app', active('app'));
    ns.stored.set('app', terminating('app'));
    await plugin.admit(deleteNamespace('app'));
    const refused = await forbidden(plugin, attrs({}));
    assert.equal(refused.code, 403);
    assert.equal(refused.message, 'configmaps "c" is forbidden: unable to create new content in namespace app because it is being terminated');
    assert.equal(ns.reads.storage, 1);
    now += 30_000;
    await plugin.admit(attrs({}));
    assert.equal(ns.reads.storage, 1, 'after the TTL the cache answers again');
  });

  it('still refuses to delete the system namespaces', async () => {
    const ns = namespaces();
    const plugin = new NamespaceLifecycle(() => ns.store);
    const refused = await forbidden(plugin, deleteNamespace('kube-system'));
    assert.equal(refused.code, 403);
    assert.match(refused.message, /this namespace may not be deleted/);
  });
});
