// An operator tested against the real API server with `skiff/testing` (the
// README's example): no mocks, no cluster, a fresh server per test file.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { startTestApiServer, type TestApiServer } from 'skiff/testing';

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

/** The operator under test: every namespace labelled team=<name> gets a `team` ConfigMap. */
async function reconcileNamespace(api: TestApiServer, name: string): Promise<void> {
  const ns = await api.client.resource<Namespace>(NAMESPACES).get(name);
  const team = ns.metadata?.labels?.team;
  if (!team) return;
  const configMaps = api.client.resource<ConfigMap>(CONFIGMAPS).namespace(name);
  const desired = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'team' }, data: { team } };
  await configMaps.patch('team', desired, 'apply', { fieldManager: 'team-operator', force: true });
}

let api: TestApiServer;
before(async () => {
  api = await startTestApiServer({ namespaces: ['payments'] });
});
after(() => api.stop());

test('a labelled namespace gets its team ConfigMap', async () => {
  await api.client.resource<Namespace>(NAMESPACES).patch('payments', { metadata: { labels: { team: 'billing' } } }, 'merge');
  await reconcileNamespace(api, 'payments');
  const cm = await api.client.resource<ConfigMap>(CONFIGMAPS).namespace('payments').get('team');
  assert.deepEqual(cm.data, { team: 'billing' });
  assert.equal(cm.metadata?.managedFields?.[0]?.manager, 'team-operator');
});

test('the real API server validates what the operator writes', async () => {
  const configMaps = api.client.resource<ConfigMap>(CONFIGMAPS).namespace('payments');
  await assert.rejects(configMaps.create({ metadata: { name: 'Not_A_Name' } }), (err: Error & { code?: number }) => err.code === 422);
  await assert.rejects(configMaps.create({ metadata: { name: 'x' } }).then(() => configMaps.create({ metadata: { name: 'x' } })), (err: Error & { code?: number }) => err.code === 409);
});
