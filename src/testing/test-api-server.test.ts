import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { Client } from '../client/rest/client.js';
import { loadKubeconfig } from '../client/rest/kubeconfig.js';
import { isGone } from '../client/rest/error-predicates.js';
import { startTestApiServer } from './test-api-server.js';
import { CONFIG_MAPS, NAMESPACES } from '../api/resource-refs.js';

test('serves the real API: system and requested namespaces, admission, a usable kubeconfig file', async () => {
  const api = await startTestApiServer({ namespaces: ['team-a'] });
  try {
    const names = (await api.client.resource<Namespace>(NAMESPACES).list()).items.map((n) => n.metadata?.name).sort();
    assert.deepEqual(names, ['default', 'kube-node-lease', 'kube-public', 'kube-system', 'team-a']);
    // NamespaceLifecycle admission runs: no objects in a namespace that does not exist
    await assert.rejects(api.client.resource<ConfigMap>(CONFIG_MAPS).namespace('missing').create({ metadata: { name: 'x' } }), (e: Error & { code?: number }) => e.code === 404);
    const fromFile = new Client(loadKubeconfig(api.kubeconfigPath));
    try {
      assert.equal((await fromFile.resource<Namespace>(NAMESPACES).get('team-a')).metadata?.name, 'team-a');
    } finally {
      fromFile.close();
    }
    assert.deepEqual(loadKubeconfig({ content: api.kubeconfig }).server, api.url);
  } finally {
    await api.stop();
  }
  assert.equal(existsSync(api.kubeconfigPath), false, 'stop removes the kubeconfig');
  await api.stop(); // twice is fine
});

test('servers are independent; compact makes old resourceVersions expire', async () => {
  const [one, two] = await Promise.all([startTestApiServer({ namespaces: ['x'] }), startTestApiServer()]);
  try {
    const cms = one.client.resource<ConfigMap>(CONFIG_MAPS).namespace('x');
    const first = await cms.create({ metadata: { name: 'a' } });
    await cms.patch('a', { data: { k: 'v' } }, 'merge');
    assert.equal((await two.client.resource<Namespace>(NAMESPACES).list()).items.some((n) => n.metadata?.name === 'x'), false);
    await one.compact();
    await assert.rejects(cms.list({ limit: 1, resourceVersion: first.metadata?.resourceVersion, resourceVersionMatch: 'Exact' }), isGone);
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});
