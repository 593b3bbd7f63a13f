import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { waitFor } from '../client/testing/wait-for.js';
import { startTestCluster } from './test-cluster.js';

test('a Deployment rolls out on simulated nodes: controllers create pods, the scheduler binds them, the nodes run them', async () => {
  const cluster = await startTestCluster({ nodes: 2, namespaces: ['shop'] });
  try {
    const labels = { app: 'web' };
    await cluster.client.resource<Deployment>({ group: 'apps', version: 'v1', resource: 'deployments' }).namespace('shop').create({
      metadata: { name: 'web' },
      spec: { replicas: 3, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    });
    const pods = cluster.client.resource<Pod>({ group: '', version: 'v1', resource: 'pods' }).namespace('shop');
    const running = async () => (await pods.list()).items.filter((p) => p.status?.phase === 'Running');
    await waitFor(async () => (await running()).length === 3, 'three running pods', 20_000);
    const nodes = new Set((await running()).map((p) => p.spec?.nodeName));
    assert.ok([...nodes].every((n) => cluster.nodes.includes(n ?? '')), `pods on ${[...nodes].join(',')}`);
    const deployments = cluster.client.resource<Deployment>({ group: 'apps', version: 'v1', resource: 'deployments' }).namespace('shop');
    await waitFor(async () => (await deployments.get('web')).status?.availableReplicas === 3, 'deployment available', 20_000);
  } finally {
    await cluster.stop();
  }
});
