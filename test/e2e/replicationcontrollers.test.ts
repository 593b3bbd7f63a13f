import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';
import { FakeKubelet } from './fake-kubelet.js';

type List<T> = { items: T[] };

const MANIFEST = `apiVersion: v1
kind: ReplicationController
metadata:
  name: rc-web
spec:
  replicas: 3
  template:
    metadata:
      labels:
        app: rc-web
    spec:
      containers:
      - name: web
        image: nginx:1
`;

describe('ReplicationControllers with kubectl: apply, get, describe, scale, cascading delete', () => {
  let server: ServerProcess;
  let kubelet: FakeKubelet;
  let kubectl: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer({ args: ['--disable', 'scheduler,kubelet'] });
    kubectl = kubectlFor(server.kubeconfig);
    kubelet = new FakeKubelet(server.kubeconfig);
    await kubelet.start();
  });
  after(async () => {
    await kubelet?.stop();
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  const running = async () =>
    (await kubectl.json<List<Pod>>(['get', 'pods', '-l', 'app=rc-web'])).items.filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase === 'Running');

  it('runs the pods it declares, prints as upstream, scales and takes its pods with it', async () => {
    await kubectl.ok(['apply', '-f', '-'], { input: MANIFEST });
    await waitFor('3 running pods', async () => (await running()).length === 3, 60_000);
    const rc = await kubectl.json<ReplicationController>(['get', 'rc', 'rc-web']);
    assert.deepEqual(rc.spec?.selector, { app: 'rc-web' }, 'selector defaulted from the template');
    for (const p of await running()) {
      const [ref] = p.metadata?.ownerReferences ?? [];
      assert.deepEqual([ref?.apiVersion, ref?.kind, ref?.name, ref?.uid, ref?.controller], ['v1', 'ReplicationController', 'rc-web', rc.metadata?.uid, true]);
    }
    await waitFor('3 ready replicas', async () => (await kubectl.json<ReplicationController>(['get', 'rc', 'rc-web'])).status?.readyReplicas === 3, 60_000);

    const table = await kubectl.ok(['get', 'replicationcontrollers']);
    assert.match(table, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\n/);
    assert.match(table, /^rc-web\s+3\s+3\s+3\s+\S+\n/m);
    const wide = await kubectl.ok(['get', 'rc', '-o', 'wide']);
    assert.match(wide, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/);
    assert.match(wide, /^rc-web\s+3\s+3\s+3\s+\S+\s+web\s+nginx:1\s+app=rc-web\n/m);
    assert.match(await kubectl.ok(['get', 'all']), /^replicationcontroller\/rc-web\s+3\s+3\s+3\s/m);

    const described = await kubectl.ok(['describe', 'rc', 'rc-web']);
    assert.match(described, /^Selector:\s+app=rc-web$/m);
    assert.match(described, /^Replicas:\s+3 current \/ 3 desired$/m);
    assert.match(described, /^Pods Status:\s+3 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed$/m);
    assert.match(described, /SuccessfulCreate\s+\S+\s+replication-controller\s+Created pod: rc-web-/);

    assert.match(await kubectl.ok(['scale', 'rc', 'rc-web', '--replicas=1']), /replicationcontroller\/rc-web scaled/);
    await waitFor('1 pod', async () => (await kubectl.json<List<Pod>>(['get', 'pods', '-l', 'app=rc-web'])).items.filter((p) => !p.metadata?.deletionTimestamp).length === 1, 60_000);
    await waitFor('status at 1 replica', async () => (await kubectl.json<ReplicationController>(['get', 'rc', 'rc-web'])).status?.replicas === 1, 60_000);
    assert.match(await kubectl.ok(['get', 'rc', 'rc-web']), /^rc-web\s+1\s+1\s+1\s/m);

    await kubectl.ok(['delete', 'rc', 'rc-web']);
    await waitFor('pods deleted with their controller', async () => (await kubectl.json<List<Pod>>(['get', 'pods', '-l', 'app=rc-web'])).items.length === 0, 60_000);
    assert.match(await kubectl.fails(['get', 'rc', 'rc-web']), /replicationcontrollers "rc-web" not found/);
  });
});
