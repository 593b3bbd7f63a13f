import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { LEASES, NODES, PODS } from '../api/resource-refs.js';
import { waitFor } from '../client/testing/wait-for.js';
import { isNotFound } from '../client/rest/error-predicates.js';
import { createLogger } from '../machinery/logger.js';
import { startTestApiServer, type TestApiServer } from '../testing/test-api-server.js';
import { HEARTBEAT_ANNOTATION, SIMULATED_LABEL } from './simulated-node.js';
import { Simulator } from './simulator.js';

const quiet = createLogger('simulate', {}, () => {});

function pod(name: string, nodeName: string, extra: Partial<Pod['spec']> = {}, meta: Partial<Pod['metadata']> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'sim', ...meta }, spec: { nodeName, containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9' }], ...extra } };
}

describe('Simulator against the real API server', () => {
  let server: TestApiServer;
  let simulator: Simulator;
  const ac = new AbortController();
  let running: Promise<void>;
  const pods = () => server.client.resource<Pod>(PODS).namespace('sim');
  const get = (name: string) => pods().get(name);
  const phase = async (name: string) => (await get(name)).status?.phase;

  before(async () => {
    server = await startTestApiServer({ namespaces: ['sim'], watchCache: true });
    simulator = new Simulator({ client: server.client, nodes: 3, leaseDurationSeconds: 2, timing: { jobPodDurationMs: 50 }, logger: quiet });
    running = simulator.run(ac.signal);
  });

  after(async () => {
    ac.abort();
    await running;
    await server.stop();
  });

  test('registers Ready nodes with capacity, labels spread over zones, and renewed Leases', async () => {
    const nodes = server.client.resource<Node>(NODES);
    await waitFor(async () => (await nodes.list({ labelSelector: `${SIMULATED_LABEL}=true` })).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length === 3, 'three Ready simulated nodes');
    const sim1 = await nodes.get('sim-1');
    assert.equal(sim1.metadata?.labels?.['kubernetes.io/hostname'], 'sim-1');
    assert.equal(sim1.status?.capacity?.pods, '110');
    assert.equal(sim1.status?.allocatable?.cpu, '32');
    const zones = new Set((await nodes.list()).items.map((n) => n.metadata?.labels?.['topology.kubernetes.io/zone']));
    assert.equal(zones.size, 3);
    const leases = server.client.resource<Lease>(LEASES).namespace('kube-node-lease');
    const first = await leases.get('sim-1');
    assert.equal(first.spec?.holderIdentity, 'sim-1');
    assert.equal(first.metadata?.ownerReferences?.[0]?.uid, sim1.metadata?.uid);
    await waitFor(async () => (await leases.get('sim-1')).spec?.renewTime !== first.spec?.renewTime, 'the Lease renewed', 10_000);
  });

  test('moves a pod bound to a simulated node to Running and Ready, and never touches pods bound elsewhere', async () => {
    // the foreign pod arrives on the watch before the simulated one, so it was seen (and left alone) before the other started
    await pods().create(pod('elsewhere', 'real-node'));
    await pods().create(pod('web', 'sim-1'));
    await waitFor(async () => (await phase('web')) === 'Running', 'web Running');
    const web = await get('web');
    assert.match(web.status?.podIP ?? '', /^10\.128\.1\.\d+$/);
    assert.equal(web.status?.hostIP, '172.16.0.2');
    assert.deepEqual(web.status?.containerStatuses?.map((c) => [c.name, c.ready, c.started, Boolean(c.state?.running)]), [['app', true, true, true]]);
    assert.equal(web.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    const other = await get('elsewhere');
    assert.equal(other.status?.phase, 'Pending');
    assert.equal(other.status?.podIP, undefined);
  });

  test('a readiness probe with an initial delay makes the pod Ready only after it', async () => {
    await pods().create(pod('slow', 'sim-0', { containers: [{ name: 'app', image: 'x', readinessProbe: { initialDelaySeconds: 1, exec: { command: ['true'] } } }] }));
    await waitFor(async () => (await phase('slow')) === 'Running', 'slow Running');
    await waitFor(async () => (await get('slow')).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false, 'slow Ready', 10_000);
    const slow = await get('slow');
    const ready = Date.parse(slow.status!.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime!);
    assert.ok(ready >= Date.parse(slow.status!.startTime!) + 1000, 'Ready no earlier than the initial delay after start');
  });

  test('a Job\'s pod Succeeds', async () => {
    await pods().create(pod('job-1', 'sim-2', { restartPolicy: 'Never' }, { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'job', uid: '6f1d9a52-0000-4000-8000-000000000001', controller: true }] }));
    await waitFor(async () => (await phase('job-1')) === 'Succeeded', 'job pod Succeeded', 10_000);
    const done = await get('job-1');
    assert.equal(done.status?.containerStatuses?.[0]?.state?.terminated?.reason, 'Completed');
    assert.equal(done.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 0);
  });

  test('a graceful deletion is finished by the node', async () => {
    await pods().create(pod('doomed', 'sim-0'));
    await waitFor(async () => (await phase('doomed')) === 'Running', 'doomed Running');
    await pods().delete('doomed', { gracePeriodSeconds: 30 });
    await waitFor(async () => get('doomed').then(() => false, (err: unknown) => isNotFound(err)), 'doomed gone');
  });

  test('a node whose heartbeats are stopped leaves its pods alone until it resumes', async () => {
    const nodes = server.client.resource<Node>(NODES);
    await nodes.patch('sim-2', { metadata: { annotations: { [HEARTBEAT_ANNOTATION]: 'stopped' } } }, 'merge');
    await waitFor(() => simulator.stats().nodes.stopped === 1, 'sim-2 stopped');
    await pods().create(pod('stuck', 'sim-2'));
    await pods().create(pod('fine', 'sim-0'));
    await waitFor(async () => (await phase('fine')) === 'Running', 'fine Running');
    assert.equal(await phase('stuck'), 'Pending');
    await nodes.patch('sim-2', { metadata: { annotations: { [HEARTBEAT_ANNOTATION]: null } } }, 'merge');
    await waitFor(async () => (await phase('stuck')) === 'Running', 'stuck Running after the node resumed');
  });
});
