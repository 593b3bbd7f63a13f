import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../api/object.js';
import { ApiError, conflict } from '../../machinery/api-error.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes } from './admission.js';
import { ResourceQuotaAdmission } from './resource-quota.js';

/** A quota store: list, and status updates guarded by resourceVersion; `raceOnce` makes the next update lose a race. */
function quotaStore(quotas: ResourceQuota[]) {
  let rv = 1;
  for (const q of quotas) q.metadata = { ...q.metadata, namespace: 'app', resourceVersion: String(rv++) };
  const state = { updates: 0, raceOnce: false };
  const store = {
    list: async () => ({ items: structuredClone(quotas) as KubeObject[] }),
    update: async (_ns: string, name: string, body: KubeObject) => {
      const i = quotas.findIndex((q) => q.metadata?.name === name);
      if (state.raceOnce) {
        state.raceOnce = false;
        quotas[i] = { ...quotas[i], metadata: { ...quotas[i].metadata, resourceVersion: String(rv++) } };
      }
      if (body.metadata?.resourceVersion !== quotas[i].metadata?.resourceVersion) throw conflict({ group: '', resource: 'resourcequotas' }, name, 'the object has been modified');
      state.updates++;
      quotas[i] = { ...(body as ResourceQuota), metadata: { ...body.metadata, resourceVersion: String(rv++) } };
      return { object: quotas[i], created: false };
    },
  };
  return { plugin: new ResourceQuotaAdmission(() => store as unknown as RegistryStore), quotas, state };
}

function podAttrs(name: string, containers: unknown[] = [{ name: 'c', image: 'x' }], over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE', kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' }, subresource: '',
    namespace: 'app', name, object: { metadata: { name, namespace: 'app' }, spec: { containers } } as KubeObject, dryRun: false, user: { name: 'jane', groups: [] }, ...over,
  };
}

async function refusal(p: ResourceQuotaAdmission, a: AdmissionAttributes): Promise<string> {
  try {
    await p.validate(a);
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 403);
    return err.message;
  }
  assert.fail('admitted');
}

const quota = (name: string, hard: Record<string, string>, used?: Record<string, string>): ResourceQuota => ({
  metadata: { name },
  spec: { hard },
  status: used ? { hard, used } : undefined,
});

describe('ResourceQuota admission', () => {
  it('charges status.used and refuses the create over quota with upstream message', async () => {
    const { plugin, quotas } = quotaStore([quota('q', { pods: '2' }, { pods: '1' })]);
    await plugin.validate(podAttrs('a'));
    assert.deepEqual(quotas[0].status?.used, { pods: '2' });
    assert.equal(await refusal(plugin, podAttrs('b')), 'pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
  });

  it('a dry run checks but charges nothing; a quota whose status lacks a resource is "status unknown"', async () => {
    const { plugin, quotas, state } = quotaStore([quota('q', { pods: '2' }, { pods: '0' })]);
    await plugin.validate(podAttrs('a', undefined, { dryRun: true }));
    assert.equal(state.updates, 0);
    assert.deepEqual(quotas[0].status?.used, { pods: '0' });
    const fresh = quotaStore([quota('new', { pods: '2' })]);
    await fresh.plugin.validate(podAttrs('a'));
    assert.equal(fresh.state.updates, 0, 'a quota the controller has not seen yet does not count');
    const partial = quotaStore([{ metadata: { name: 'grown' }, spec: { hard: { pods: '2', 'count/pods': '2' } }, status: { hard: { pods: '2', 'count/pods': '2' }, used: { pods: '0' } } }]);
    assert.equal(await refusal(partial.plugin, podAttrs('a')), 'pods "a" is forbidden: status unknown for quota: grown, resources: count/pods,pods');
  });

  it('compute quotas require containers to state them; usage sums requests and limits', async () => {
    const { plugin, quotas } = quotaStore([quota('compute', { 'limits.cpu': '1', 'requests.memory': '1Gi' }, { 'limits.cpu': '0', 'requests.memory': '0' })]);
    assert.equal(await refusal(plugin, podAttrs('bare')), 'pods "bare" is forbidden: failed quota: compute: must specify limits.cpu for: c; requests.memory for: c');
    await plugin.validate(podAttrs('ok', [{ name: 'c', image: 'x', resources: { limits: { cpu: '600m' }, requests: { memory: '512Mi', cpu: '100m' } } }]));
    assert.deepEqual(quotas[0].status?.used, { 'limits.cpu': '600m', 'requests.memory': '512Mi' });
    assert.equal(
      await refusal(plugin, podAttrs('more', [{ name: 'c', image: 'x', resources: { limits: { cpu: '600m' }, requests: { memory: '256Mi' } } }])),
      'pods "more" is forbidden: exceeded quota: compute, requested: limits.cpu=600m, used: limits.cpu=600m, limited: limits.cpu=1',
    );
  });

  it('a lost race on the quota status is retried against the fresh quota', async () => {
    const { plugin, quotas, state } = quotaStore([quota('q', { pods: '5', 'count/pods': '5' }, { pods: '1', 'count/pods': '1' })]);
    state.raceOnce = true;
    await plugin.validate(podAttrs('a'));
    assert.deepEqual(quotas[0].status?.used, { pods: '2', 'count/pods': '2' });
    assert.equal(state.updates, 1);
  });

  it('scoped quotas and objects the quota does not count are left alone', async () => {
    const { plugin, state } = quotaStore([quota('be', { pods: '0' }, { pods: '0' })]);
    (plugin as unknown as { quotas: () => { list: () => Promise<{ items: KubeObject[] }> } }).quotas = () => ({
      list: async () => ({ items: [{ metadata: { name: 'be' }, spec: { hard: { pods: '0' }, scopes: ['BestEffort'] }, status: { hard: { pods: '0' }, used: { pods: '0' } } } as KubeObject] }),
    });
    await plugin.validate(podAttrs('burst', [{ name: 'c', image: 'x', resources: { requests: { cpu: '1' } } }]));
    await plugin.validate({ ...podAttrs('cm'), resource: { group: '', version: 'v1', resource: 'configmaps' } });
    assert.equal(state.updates, 0);
  });
});
