import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';
import { FakeKubelet } from './fake-kubelet.js';
import { WebAppOperator } from '../../examples/webapp-operator/operator.js';

// The sample operator (examples/webapp-operator, @kubernetes/client-node only)
// against a `skiff server` process: its controller manager turns the
// operator's Deployment into ReplicaSets and pods (a fake kubelet runs them),
// the Deployment's status flows back into the WebApp's, and kubectl prints
// the CRD's columns.

describe('sample operator against skiff server', () => {
  let server: ServerProcess;
  let kubelet: FakeKubelet;
  let k: ReturnType<typeof kubectlFor>;
  const stop = new AbortController();
  let running: Promise<void> | undefined;

  before(async () => {
    server = await startServer({ args: ['--disable', 'scheduler,kubelet'], timeoutMs: 90_000 });
    k = kubectlFor(server.kubeconfig);
    kubelet = new FakeKubelet(server.kubeconfig);
    await kubelet.start();
    const kubeConfig = new k8s.KubeConfig();
    kubeConfig.loadFromFile(server.kubeconfig);
    running = new WebAppOperator({ kubeConfig, signal: stop.signal }).run();
  });

  after(async () => {
    stop.abort();
    await running?.catch(() => undefined);
    await kubelet?.stop();
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('reconciles a WebApp into a running Deployment and reports it', async () => {
    await k.ok(['wait', '--for=condition=Established', 'crd/webapps.examples.skiff.dev', '--timeout=60s']).catch(async () => {
      // the operator may not have created it yet
      await waitFor('the WebApp CRD', async () => (await k.exec(['get', 'crd', 'webapps.examples.skiff.dev'])).code === 0, 60_000, 200);
      await k.ok(['wait', '--for=condition=Established', 'crd/webapps.examples.skiff.dev', '--timeout=60s']);
    });
    await k.ok(['apply', '-f', '-'], {
      input: `apiVersion: examples.skiff.dev/v1
kind: WebApp
metadata: {name: shop, namespace: default}
spec: {image: nginx:1.27, replicas: 2}
`,
    });
    await waitFor(
      'the WebApp to report 2 ready replicas',
      async () => {
        const app = await k.json<{ status?: { readyReplicas?: number } }>(['get', 'webapp', 'shop']);
        return app.status?.readyReplicas === 2;
      },
      60_000,
      200,
    );
    assert.match(await k.ok(['get', 'webapps']), /shop\s+nginx:1\.27\s+2\s+2\s+\d+s/);
    const deployment = await k.json<{ metadata: { ownerReferences: { kind: string; name: string; controller: boolean }[] } }>(['get', 'deployment', 'shop']);
    assert.deepEqual(
      deployment.metadata.ownerReferences.map((r) => [r.kind, r.name, r.controller]),
      [['WebApp', 'shop', true]],
    );
    const pods = await k.json<{ items: unknown[] }>(['get', 'pods', '-l', 'app=shop']);
    assert.equal(pods.items.length, 2);
  });

  it('deleting the WebApp deletes its Deployment (the garbage collector resolves custom owners through discovery)', async () => {
    await k.ok(['delete', 'webapp', 'shop']);
    await waitFor('the Deployment to be collected', async () => (await k.exec(['get', 'deployment', 'shop'])).stderr.includes('NotFound'), 60_000, 200);
  });
});
