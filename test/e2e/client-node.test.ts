import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

describe('@kubernetes/client-node against skiff server', () => {
  let server: ServerProcess;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;

  before(async () => {
    server = await startServer({ command: 'apiserver' });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'js' } } });
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  const pod = (name: string): k8s.V1Pod => ({
    metadata: { name, labels: { app: 'js' } },
    spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '60'] }] },
  });

  it('lists pods', async () => {
    await core.createNamespacedPod({ namespace: 'js', body: pod('p1') });
    const list = await core.listNamespacedPod({ namespace: 'js' });
    assert.deepEqual(list.items.map((p) => p.metadata?.name), ['p1']);
    assert.equal(list.items[0].status?.phase, 'Pending');
    assert.ok(Number(list.metadata?.resourceVersion) > 0);
  });

  it('watches pods from a list resourceVersion', async () => {
    const list = await core.listNamespacedPod({ namespace: 'js' });
    const events: { type: string; name: string }[] = [];
    const watch = new k8s.Watch(kc);
    const controller = await watch.watch(
      '/api/v1/namespaces/js/pods',
      { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true },
      (type: string, obj: k8s.V1Pod) => events.push({ type, name: obj.metadata?.name ?? '' }),
      () => {},
    );
    try {
      await core.createNamespacedPod({ namespace: 'js', body: pod('p2') });
      await core.patchNamespacedPod(
        { namespace: 'js', name: 'p2', body: { metadata: { labels: { seen: 'yes' } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await core.deleteNamespacedPod({ namespace: 'js', name: 'p2' });
      await waitFor('three events', () => events.length >= 3);
      assert.deepEqual(events.slice(0, 3), [
        { type: 'ADDED', name: 'p2' },
        { type: 'MODIFIED', name: 'p2' },
        { type: 'DELETED', name: 'p2' },
      ]);
    } finally {
      controller.abort();
    }
  });

  it('keeps an informer cache in sync', async () => {
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/js/pods', () => core.listNamespacedPod({ namespace: 'js' }));
    const seen = new Set<string>();
    informer.on('add', (p: k8s.V1Pod) => seen.add(p.metadata?.name ?? ''));
    informer.on('delete', (p: k8s.V1Pod) => seen.delete(p.metadata?.name ?? ''));
    await informer.start();
    try {
      await core.createNamespacedPod({ namespace: 'js', body: pod('p3') });
      await waitFor('the informer to see p3', () => seen.has('p3'));
      await core.deleteNamespacedPod({ namespace: 'js', name: 'p1' });
      await waitFor('the informer to drop p1', () => !seen.has('p1'));
      assert.deepEqual([...seen].sort(), ['p3']);
    } finally {
      await informer.stop();
    }
  });
});
