import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, run, startServer, waitFor, type ServerProcess } from './harness.js';

/**
 * The seeds' walk, end to end in one `skiff server`: kubectl → API server →
 * deployment controller → ReplicaSet → pods → scheduler → kubelet → processes,
 * and back out again on delete.
 */
describe('the pod-creation flow', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  const marker = `skiff-flow-${process.pid}`;

  before(async () => {
    server = await startServer();
    k = kubectlFor(server.kubeconfig);
    await waitFor('the node to be Ready', async () => /\sReady\s/.test(await k.ok(['get', 'nodes'])));
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  const processes = async () => (await run('pgrep', ['-f', marker])).stdout.trim().split('\n').filter(Boolean).length;

  it('runs a Deployment as real processes and removes them on delete', async () => {
    await k.ok(['create', 'deployment', 'web', '--image=busybox', '--replicas=3', '--', 'sh', '-c', `echo ${marker}; sleep 3600; echo ${marker}`]);
    assert.match(await k.ok(['rollout', 'status', 'deployment/web', '--timeout=90s']), /successfully rolled out/);
    const pods = await k.json<{ items: { spec: { nodeName: string }; status: { phase: string } }[] }>(['get', 'pods', '-l', 'app=web']);
    assert.equal(pods.items.length, 3);
    for (const p of pods.items) {
      assert.ok(p.spec.nodeName, 'the scheduler bound every pod');
      assert.equal(p.status.phase, 'Running');
    }
    assert.equal(await processes(), 3, 'the kubelet runs one process per pod');
    assert.match(await k.ok(['logs', 'deployment/web']), new RegExp(marker));
    // events are sent in the background by each component: wait for all of them
    const reasons = ['ScalingReplicaSet', 'SuccessfulCreate', 'Scheduled', 'Created', 'Started'];
    await waitFor(`events ${reasons.join(', ')}`, async () => {
      const events = await k.ok(['get', 'events']);
      return reasons.every((r) => events.includes(r));
    });

    await k.ok(['delete', 'deployment', 'web']);
    await waitFor('the pods to go away', async () => (await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'name'])).trim() === '', 60_000);
    await waitFor('the processes to end', async () => (await processes()) === 0);
    assert.equal((await k.ok(['get', 'rs', '-o', 'name'])).trim(), '');
  });
});
