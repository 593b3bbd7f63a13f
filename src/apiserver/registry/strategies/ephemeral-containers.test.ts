import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startInProcessServer, type InProcessServer } from '../../in-process-server.test-util.js';

const POD = '/api/v1/namespaces/default/pods/target';
const SUB = `${POD}/ephemeralcontainers`;
const SMP = 'application/strategic-merge-patch+json';

/** What `kubectl debug` sends: a strategic merge patch of the pod adding one ephemeral container. */
const debugPatch = (name: string, extra: Record<string, unknown> = {}) => ({
  spec: { ephemeralContainers: [{ name, image: 'busybox', command: ['sh'], stdin: true, tty: true, resources: {}, terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent', ...extra }] },
});

interface StatusBody {
  code: number;
  reason: string;
  message: string;
  details?: { causes?: { field: string; reason: string; message: string }[] };
}

describe('pods/ephemeralcontainers', () => {
  let s: InProcessServer;
  before(async () => {
    s = await startInProcessServer();
    const r = await s.request('POST', '/api/v1/namespaces/default/pods', {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'target' }, spec: { containers: [{ name: 'app', image: 'x' }] } },
    });
    assert.equal(r.status, 201, r.text);
  });
  after(() => s?.stop());

  it('is advertised with get, patch and update', async () => {
    const list = (await s.request('GET', '/api/v1')).json() as { resources: { name: string; kind: string; verbs: string[] }[] };
    const sub = list.resources.find((r) => r.name === 'pods/ephemeralcontainers');
    assert.deepEqual(sub && { kind: sub.kind, verbs: sub.verbs }, { kind: 'Pod', verbs: ['get', 'patch', 'update'] });
  });

  it('adds an ephemeral container by strategic merge patch, and GET returns the pod', async () => {
    const r = await s.request('PATCH', SUB, { body: debugPatch('debugger'), contentType: SMP });
    assert.equal(r.status, 200, r.text);
    const pod = r.json() as { kind: string; spec: { ephemeralContainers: { name: string; image: string }[] } };
    assert.equal(pod.kind, 'Pod');
    assert.deepEqual(pod.spec.ephemeralContainers.map((c) => [c.name, c.image]), [['debugger', 'busybox']]);
    const got = (await s.request('GET', SUB)).json() as typeof pod;
    assert.equal(got.spec.ephemeralContainers[0].name, 'debugger');
  });

  it('changes nothing but spec.ephemeralContainers', async () => {
    const current = (await s.request('GET', POD)).json() as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
    const body = structuredClone(current) as { metadata: { labels?: Record<string, string> }; spec: { activeDeadlineSeconds?: number; ephemeralContainers: unknown[] } };
    body.metadata.labels = { sneaky: 'yes' };
    body.spec.activeDeadlineSeconds = 5;
    body.spec.ephemeralContainers.push({ name: 'second', image: 'busybox', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' });
    const r = await s.request('PUT', SUB, { body });
    assert.equal(r.status, 200, r.text);
    const pod = r.json() as { metadata: { labels?: unknown }; spec: { activeDeadlineSeconds?: number; ephemeralContainers: { name: string }[] } };
    assert.equal(pod.metadata.labels, undefined);
    assert.equal(pod.spec.activeDeadlineSeconds, undefined);
    assert.deepEqual(pod.spec.ephemeralContainers.map((c) => c.name), ['debugger', 'second']);
  });

  // a strategic merge patch puts list items new to the object first, as upstream's does
  it("refuses ports, probes, resources and subPath mounts with upstream's causes", async () => {
    const r = await s.request('PATCH', SUB, {
      contentType: SMP,
      body: debugPatch('bad', { ports: [{ containerPort: 80 }], readinessProbe: { exec: { command: ['true'] } }, resources: { limits: { cpu: '1' } }, volumeMounts: [{ name: 'v', mountPath: '/v', subPath: 'x' }] }),
    });
    assert.equal(r.status, 422, r.text);
    const status = r.json() as unknown as StatusBody;
    const fields = (status.details?.causes ?? []).filter((c) => c.message === 'Forbidden: cannot be set for an Ephemeral Container').map((c) => c.field).sort();
    assert.deepEqual(fields, ['spec.ephemeralContainers[0].ports', 'spec.ephemeralContainers[0].readinessProbe', 'spec.ephemeralContainers[0].resources', 'spec.ephemeralContainers[0].volumeMounts[0].subPath']);
  });

  it('refuses a duplicate name and an unknown target container', async () => {
    const dup = await s.request('PATCH', SUB, { contentType: SMP, body: debugPatch('app') });
    assert.equal(dup.status, 422);
    assert.match((dup.json() as unknown as StatusBody).message, /spec\.ephemeralContainers\[0\]\.name: Duplicate value: "app"/);
    const target = await s.request('PATCH', SUB, { contentType: SMP, body: debugPatch('t', { targetContainerName: 'nosuch' }) });
    assert.equal(target.status, 422);
    assert.match((target.json() as unknown as StatusBody).message, /spec\.ephemeralContainers\[0\]\.targetContainerName: Not found: "nosuch"/);
  });

  it('never removes or changes an existing ephemeral container', async () => {
    const current = (await s.request('GET', SUB)).json() as { spec: { ephemeralContainers: { name: string; image: string }[] } };
    const removed = structuredClone(current);
    removed.spec.ephemeralContainers = removed.spec.ephemeralContainers.filter((c) => c.name !== 'second');
    const r1 = await s.request('PUT', SUB, { body: removed });
    assert.equal(r1.status, 422);
    assert.match((r1.json() as unknown as StatusBody).message, /existing ephemeral containers "second" may not be removed/);
    const changed = structuredClone(current);
    changed.spec.ephemeralContainers[0].image = 'alpine';
    const r2 = await s.request('PUT', SUB, { body: changed });
    assert.equal(r2.status, 422);
    assert.match((r2.json() as unknown as StatusBody).message, /existing ephemeral containers "debugger" may not be changed/);
  });

  it('keeps the pod updatable and its ephemeral containers out of reach of a plain update', async () => {
    const pod = (await s.request('GET', POD)).json() as { status: Record<string, unknown>; spec: { ephemeralContainers: unknown[] } };
    pod.status = { ...pod.status, phase: 'Running' };
    const status = await s.request('PUT', `${POD}/status`, { body: pod });
    assert.equal(status.status, 200, status.text);
    const plain = (await s.request('GET', POD)).json() as typeof pod;
    plain.spec.ephemeralContainers = [];
    const r = await s.request('PUT', POD, { body: plain });
    assert.equal(r.status, 422, r.text);
    assert.match((r.json() as unknown as StatusBody).message, /pod updates may not change fields/);
  });

  it('refuses static (mirror) pods and ephemeral containers on create', async () => {
    const mirror = await s.request('POST', '/api/v1/namespaces/default/pods', {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'mirror', annotations: { 'kubernetes.io/config.mirror': 'x' } }, spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'x' }] } },
    });
    assert.equal(mirror.status, 201, mirror.text);
    const r = await s.request('PATCH', '/api/v1/namespaces/default/pods/mirror/ephemeralcontainers', { contentType: SMP, body: debugPatch('dbg') });
    assert.equal(r.status, 422);
    assert.match((r.json() as unknown as StatusBody).message, /static pods do not support ephemeral containers/);
    const create = await s.request('POST', '/api/v1/namespaces/default/pods', {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'eph' }, spec: { containers: [{ name: 'app', image: 'x' }], ephemeralContainers: [{ name: 'd', image: 'x' }] } },
    });
    assert.equal(create.status, 422);
    assert.match((create.json() as unknown as StatusBody).message, /spec\.ephemeralContainers: Forbidden: cannot be set on create/);
  });
});
