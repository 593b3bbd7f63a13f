import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';
import { FakeKubelet } from './fake-kubelet.js';

type List<T> = { items: T[] };

describe('controller manager: Deployments, ReplicaSets, garbage collector, namespaces', () => {
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

  const rsOf = async (app: string) => (await kubectl.json<List<ReplicaSet>>(['get', 'rs', '-l', `app=${app}`])).items;
  const podsOf = async (app: string) => (await kubectl.json<List<Pod>>(['get', 'pods', '-l', `app=${app}`])).items;
  const deployment = (name: string) => kubectl.json<Deployment>(['get', 'deployment', name]);

  it('runs a Deployment through create, rolling update, history, undo, scaling and pause', async () => {
    await kubectl.ok(['create', 'deployment', 'web', '--image=nginx:1', '--replicas=3']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=20s']);
    const [rs] = await rsOf('web');
    assert.equal((await rsOf('web')).length, 1);
    const hash = rs.metadata?.labels?.['pod-template-hash'];
    assert.ok(hash && rs.metadata?.name === `web-${hash}`);
    assert.equal(rs.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
    const pods = await podsOf('web');
    assert.equal(pods.length, 3);
    for (const p of pods) assert.equal(p.metadata?.ownerReferences?.[0]?.uid, rs.metadata?.uid);

    // Rolling update: availability never drops below replicas - maxUnavailable (3 - floor(25% of 3) = 3).
    let minAvailable = Infinity;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const rss = await rsOf('web');
        const available = rss.reduce((n, r) => n + (r.status?.availableReplicas ?? 0), 0);
        minAvailable = Math.min(minAvailable, available);
      }
    })();
    await kubectl.ok(['set', 'image', 'deployment/web', 'nginx=nginx:2']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    watching = false;
    await watcher;
    assert.ok(minAvailable >= 3, `available dropped to ${minAvailable}`);
    const d = await deployment('web');
    assert.equal(d.metadata?.annotations?.['deployment.kubernetes.io/revision'], '2');
    assert.deepEqual([d.status?.replicas, d.status?.updatedReplicas, d.status?.availableReplicas, d.status?.readyReplicas], [3, 3, 3, 3]);
    assert.equal(d.status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'NewReplicaSetAvailable');
    assert.equal(d.status?.conditions?.find((c) => c.type === 'Available')?.status, 'True');
    const history = await kubectl.ok(['rollout', 'history', 'deployment/web']);
    assert.match(history, /^1\s/m);
    assert.match(history, /^2\s/m);

    await kubectl.ok(['rollout', 'undo', 'deployment/web']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    assert.equal((await deployment('web')).spec?.template?.spec?.containers?.[0]?.image, 'nginx:1');
    assert.equal((await rsOf('web')).length, 2, 'undo reuses the first ReplicaSet');
    await kubectl.ok(['rollout', 'undo', 'deployment/web', '--to-revision=2']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    assert.equal((await deployment('web')).spec?.template?.spec?.containers?.[0]?.image, 'nginx:2');

    await kubectl.ok(['scale', 'deployment/web', '--replicas=10']);
    await waitFor('10 pods', async () => (await podsOf('web')).length === 10);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    await kubectl.ok(['scale', 'deployment/web', '--replicas=2']);
    await waitFor('2 pods', async () => (await podsOf('web')).filter((p) => !p.metadata?.deletionTimestamp).length === 2);

    await kubectl.ok(['rollout', 'pause', 'deployment/web']);
    await kubectl.ok(['set', 'image', 'deployment/web', 'nginx=nginx:3']);
    await waitFor('paused condition', async () => (await deployment('web')).status?.conditions?.some((c) => c.reason === 'DeploymentPaused'));
    assert.ok((await podsOf('web')).every((p) => p.spec?.containers?.[0]?.image === 'nginx:2'), 'a paused Deployment does not roll out');
    await kubectl.ok(['rollout', 'resume', 'deployment/web']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    const images = (await podsOf('web')).filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.spec?.containers?.[0]?.image);
    assert.deepEqual(images, ['nginx:3', 'nginx:3']);
    const events = await kubectl.ok(['get', 'events', '--field-selector', 'involvedObject.name=web']);
    assert.match(events, /ScalingReplicaSet/);
  });

  it('deletes dependents in the background, orphans them, or deletes them first (foreground)', async () => {
    for (const n of ['bg', 'orph', 'fg']) await kubectl.ok(['create', 'deployment', n, '--image=nginx', '--replicas=2']);
    for (const n of ['bg', 'orph', 'fg']) await kubectl.ok(['rollout', 'status', `deployment/${n}`, '--timeout=20s']);

    await kubectl.ok(['delete', 'deployment', 'bg']);
    await waitFor('bg ReplicaSet and pods gone', async () => (await rsOf('bg')).length === 0 && (await podsOf('bg')).length === 0);

    await kubectl.ok(['delete', 'deployment', 'orph', '--cascade=orphan']);
    const [orphan] = await rsOf('orph');
    assert.ok(orphan, 'the ReplicaSet stays');
    assert.equal(orphan.metadata?.ownerReferences?.length ?? 0, 0, 'its owner reference is removed');
    assert.equal((await podsOf('orph')).length, 2);

    // With --wait (the default) kubectl returns only once the Deployment is gone; by then its dependents must be too.
    await kubectl.ok(['delete', 'deployment', 'fg', '--cascade=foreground', '--timeout=20s']);
    assert.equal((await rsOf('fg')).length, 0);
    assert.equal((await podsOf('fg')).length, 0);
  });

  it('empties and deletes a namespace', async () => {
    await kubectl.ok(['create', 'namespace', 'doomed']);
    await kubectl.ok(['-n', 'doomed', 'create', 'deployment', 'x', '--image=nginx', '--replicas=2']);
    await kubectl.ok(['-n', 'doomed', 'create', 'configmap', 'c']);
    await kubectl.ok(['-n', 'doomed', 'rollout', 'status', 'deployment/x', '--timeout=20s']);
    await kubectl.ok(['delete', 'namespace', 'doomed', '--timeout=10s']);
    assert.match(await kubectl.fails(['get', 'namespace', 'doomed']), /NotFound|not found/);
  });

  it('exposes work-queue and reconcile metrics and holds the leader lease', async () => {
    // the controller manager's own line: every component of skiff server logs a healthPort, in no fixed order
    const port = Number(/"msg":"controller manager started"[^\n]*"healthPort":(\d+)/.exec(server.logs())?.[1]);
    assert.ok(port > 0);
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(text, /workqueue_adds_total\{name="deployment"\} \d+/);
    assert.match(text, /controller_runtime_reconcile_total\{controller="replicaset",result="success"\} \d+/);
    const lease = await kubectl.json<{ spec?: { holderIdentity?: string } }>(['-n', 'kube-system', 'get', 'lease', 'kube-controller-manager']);
    assert.ok(lease.spec?.holderIdentity);
  });
});
