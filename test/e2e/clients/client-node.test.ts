/**
 * Drives `skiff server` with `@kubernetes/client-node` (1.x, the last major
 * that runs on Node 20) as an operator author would: typed CRUD, patches and
 * server-side apply, watch and informers, exec with its status channel, log
 * follow and port-forward over its WebSocket handler.
 */
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { firstNodeName, kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from '../harness.js';

const NS = 'js';

/** A Writable that keeps what it was given. */
class Collector extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function errorCode(err: unknown): number | undefined {
  return (err as { code?: number }).code;
}

describe('@kubernetes/client-node against skiff server', () => {
  let server: ServerProcess;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;
  let nodeName = '';
  let scratch = '';
  let echoPort = 0;

  const pod = (name: string, command: string[]): k8s.V1Pod => ({
    metadata: { name, labels: { app: 'js' } },
    spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'busybox', command }] },
  });

  async function runningPod(name: string, command: string[]): Promise<void> {
    await core.createNamespacedPod({ namespace: NS, body: pod(name, command) });
    await waitFor(`pod ${name} to run`, async () => (await core.readNamespacedPod({ namespace: NS, name })).status?.phase === 'Running', 60_000);
  }

  before(async () => {
    server = await startServer({ command: 'server' });
    nodeName = await firstNodeName(kubectlFor(server.kubeconfig));
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    apps = kc.makeApiClient(k8s.AppsV1Api);
    scratch = await mkdtemp(join(tmpdir(), 'skiff-client-node-'));
    echoPort = await freePort();
    await core.createNamespace({ body: { metadata: { name: NS } } });
    // the process runtime runs host commands: a shell and a TCP server that answers in upper case
    const echo = `require('net').createServer((s) => s.on('data', (d) => s.write(d.toString().toUpperCase()))).listen(${echoPort}, '127.0.0.1')`;
    await Promise.all([runningPod('shell', ['sh', '-c', 'sleep 3600']), runningPod('echo', [process.execPath, '-e', echo])]);
  });

  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
    if (scratch) await removeDir(scratch);
  });

  it('typed Service round trip: create, read, replace, strategic and JSON patch, delete', async () => {
    const created = await core.createNamespacedService({
      namespace: NS,
      body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    });
    assert.ok(created.spec?.clusterIP);
    assert.equal(created.spec?.ports?.[0].protocol, 'TCP');
    // Go encodes the non-pointer status structs, so typed clients see objects, not undefined
    assert.ok(created.status instanceof k8s.V1ServiceStatus);
    assert.ok(created.status.loadBalancer instanceof k8s.V1LoadBalancerStatus);
    const got = await core.readNamespacedService({ namespace: NS, name: 'web' });
    got.metadata!.labels = { tier: 'front' };
    const replaced = await core.replaceNamespacedService({ namespace: NS, name: 'web', body: got });
    assert.deepEqual(replaced.metadata?.labels, { tier: 'front' });
    assert.equal(replaced.spec?.clusterIP, created.spec?.clusterIP);
    assert.ok(Number(replaced.metadata?.resourceVersion) > Number(created.metadata?.resourceVersion));

    // a stale replace is a 409 Conflict
    await assert.rejects(core.replaceNamespacedService({ namespace: NS, name: 'web', body: got }), (err) => errorCode(err) === 409);

    // strategic merge: ports merge by port number
    const merged = await core.patchNamespacedService(
      { namespace: NS, name: 'web', body: { spec: { ports: [{ name: 'metrics', port: 9090 }] } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(merged.spec?.ports?.map((p) => `${p.name}:${p.port}`).sort(), ['http:80', 'metrics:9090']);
    const jsonPatched = await core.patchNamespacedService(
      { namespace: NS, name: 'web', body: [{ op: 'replace', path: '/metadata/labels/tier', value: 'back' }] },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    assert.deepEqual(jsonPatched.metadata?.labels, { tier: 'back' });

    await core.deleteNamespacedService({ namespace: NS, name: 'web' });
    await assert.rejects(core.readNamespacedService({ namespace: NS, name: 'web' }), (err) => errorCode(err) === 404);
  });

  it('typed Deployment round trip with defaults, and the scale subresource', async () => {
    const labels = { app: 'js-deploy' };
    const created = await apps.createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name: 'js-deploy' },
        spec: {
          replicas: 0,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'main', image: 'busybox', command: ['sleep', '3600'] }] } },
        },
      },
    });
    assert.ok(created.status instanceof k8s.V1DeploymentStatus);
    assert.equal(created.spec?.strategy?.type, 'RollingUpdate');
    assert.equal(created.spec?.strategy?.rollingUpdate?.maxSurge, '25%');
    assert.equal(created.spec?.template.spec?.restartPolicy, 'Always');
    const scale = await apps.readNamespacedDeploymentScale({ namespace: NS, name: 'js-deploy' });
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.status?.selector, 'app=js-deploy');
    const patched = await apps.patchNamespacedDeployment(
      { namespace: NS, name: 'js-deploy', body: { metadata: { annotations: { note: 'merge' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    // the Deployment controller may have added its revision annotation meanwhile
    assert.equal(patched.metadata?.annotations?.note, 'merge');
    await apps.deleteNamespacedDeployment({ namespace: NS, name: 'js-deploy', propagationPolicy: 'Background' });
  });

  it('server-side apply through KubernetesObjectApi: create, update, conflicts, force', async () => {
    const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    const cm = (data: Record<string, string>): k8s.V1ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: NS }, data });
    const first = await objects.patch(cm({ a: '1' }), undefined, undefined, 'js-a', undefined, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual(first.data, { a: '1' });
    assert.deepEqual(first.metadata?.managedFields?.map((f) => [f.manager, f.operation]), [['js-a', 'Apply']]);
    const second = await objects.patch(cm({ a: '1', b: '2' }), undefined, undefined, 'js-a', undefined, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual(second.data, { a: '1', b: '2' });
    // another manager setting a's value conflicts, until it forces
    await assert.rejects(objects.patch(cm({ a: 'other' }), undefined, undefined, 'js-b', undefined, k8s.PatchStrategy.ServerSideApply), (err) => errorCode(err) === 409);
    const forced = await objects.patch(cm({ a: 'other' }), undefined, undefined, 'js-b', true, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual(forced.data, { a: 'other', b: '2' });
    const read = await objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: NS } });
    assert.equal(read.metadata?.resourceVersion, forced.metadata?.resourceVersion);
    await objects.delete(read);
  });

  it('an informer sees add, update and delete, in order, and its cache follows', async () => {
    const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${NS}/configmaps`, () => core.listNamespacedConfigMap({ namespace: NS }));
    const events: string[] = [];
    const errors: unknown[] = [];
    // every namespace also holds the kube-root-ca.crt ConfigMap (root-ca-cert-publisher), as upstream
    const ours = (cm: k8s.V1ConfigMap): boolean => cm.metadata?.name !== 'kube-root-ca.crt';
    informer.on('add', (cm: k8s.V1ConfigMap) => ours(cm) && events.push(`add ${cm.metadata?.name} ${cm.data?.v}`));
    informer.on('update', (cm: k8s.V1ConfigMap) => ours(cm) && events.push(`update ${cm.metadata?.name} ${cm.data?.v}`));
    informer.on('delete', (cm: k8s.V1ConfigMap) => ours(cm) && events.push(`delete ${cm.metadata?.name}`));
    informer.on('error', (err) => errors.push(err));
    await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'listed' }, data: { v: '0' } } });
    await informer.start();
    try {
      await waitFor('the listed object', () => events.includes('add listed 0'));
      await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'watched' }, data: { v: '1' } } });
      await core.patchNamespacedConfigMap(
        { namespace: NS, name: 'watched', body: { data: { v: '2' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await waitFor('the update', () => informer.get('watched', NS)?.data?.v === '2');
      await core.deleteNamespacedConfigMap({ namespace: NS, name: 'watched' });
      await waitFor('the delete', () => events.includes('delete watched'));
      assert.deepEqual(events, ['add listed 0', 'add watched 1', 'update watched 2', 'delete watched']);
      assert.deepEqual(informer.list(NS).filter(ours).map((c) => c.metadata?.name), ['listed']);
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
      await core.deleteNamespacedConfigMap({ namespace: NS, name: 'listed' });
    }
  });

  it('a raw watch from a list resourceVersion sees ADDED, MODIFIED, DELETED', async () => {
    const list = await core.listNamespacedPod({ namespace: NS });
    const events: string[] = [];
    const watch = new k8s.Watch(kc);
    const controller = await watch.watch(
      `/api/v1/namespaces/${NS}/pods`,
      { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true },
      (type: string, obj: k8s.V1Pod) => type !== 'BOOKMARK' && events.push(`${type} ${obj.metadata?.name}`),
      () => undefined,
    );
    try {
      await core.createNamespacedPod({ namespace: NS, body: { metadata: { name: 'watched' }, spec: { containers: [{ name: 'c', image: 'busybox' }], nodeName: 'nowhere' } } });
      await core.patchNamespacedPod(
        { namespace: NS, name: 'watched', body: { metadata: { labels: { seen: 'yes' } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await core.deleteNamespacedPod({ namespace: NS, name: 'watched', gracePeriodSeconds: 0 });
      await waitFor('the delete', () => events.includes('DELETED watched'));
      assert.deepEqual(events.filter((e) => e.endsWith(' watched')).slice(0, 2), ['ADDED watched', 'MODIFIED watched']);
    } finally {
      controller.abort();
    }
  });

  it('exec: stdout, stderr and the exit code on the status channel', async () => {
    const exec = new k8s.Exec(kc);
    const run = async (command: string[], stdin?: string) => {
      const stdout = new Collector();
      const stderr = new Collector();
      let status: k8s.V1Status | undefined;
      const ws = await exec.exec(NS, 'shell', 'main', command, stdout, stderr, stdin === undefined ? null : Readable.from([stdin]), false, (s) => (status = s));
      await new Promise((resolve) => (ws.readyState === ws.CLOSED ? resolve(undefined) : ws.once('close', resolve)));
      assert.ok(status, 'a status arrived before the socket closed');
      return { stdout: stdout.text, stderr: stderr.text, status };
    };
    const failed = await run(['sh', '-c', 'echo out; echo err >&2; exit 3']);
    assert.equal(failed.stdout, 'out\n');
    assert.equal(failed.stderr, 'err\n');
    assert.equal(failed.status.status, 'Failure');
    assert.equal(failed.status.reason, 'NonZeroExitCode');
    assert.deepEqual(failed.status.details?.causes, [{ reason: 'ExitCode', message: '3' }]);
    const ok = await run(['echo', 'hello', 'node']);
    assert.equal(ok.stdout, 'hello node\n');
    assert.equal(ok.status.status, 'Success');
    const piped = await run(['sh', '-c', 'cat; echo done'], 'from stdin\n');
    assert.equal(piped.stdout, 'from stdin\ndone\n');
  });

  it('log follow delivers lines the container writes after the follow began', async () => {
    const gate = join(scratch, 'go');
    await runningPod('writer', ['sh', '-c', `echo before; while [ ! -e ${gate} ]; do sleep 0.1; done; echo after; sleep 3600`]);
    const out = new Collector();
    const follow = await new k8s.Log(kc).log(NS, 'writer', 'main', out, { follow: true });
    try {
      await waitFor('the line written before', () => out.text === 'before\n');
      await writeFile(gate, '');
      await waitFor('the line written after', () => out.text === 'before\nafter\n');
    } finally {
      follow.abort();
    }
  });

  it('port-forward carries bytes to a port in the pod and back', async () => {
    const forward = new k8s.PortForward(kc);
    // the client's documented use: one forwarded stream per accepted local connection
    const local: Server = createServer((socket) => void forward.portForward(NS, 'echo', [echoPort], socket, null, socket));
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    try {
      const roundTrip = (text: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = createConnection((local.address() as AddressInfo).port, '127.0.0.1');
          let got = '';
          socket.on('data', (d: Buffer) => {
            got += d.toString();
            if (got.length >= text.length) {
              socket.destroy();
              resolve(got);
            }
          });
          socket.on('error', reject);
          socket.write(text);
        });
      assert.equal(await roundTrip('hello through client-node'), 'HELLO THROUGH CLIENT-NODE');
      assert.equal(await roundTrip('a second connection'), 'A SECOND CONNECTION');
      // and the streams API directly
      const input = new PassThrough();
      const output = new Collector();
      const errors = new Collector();
      const ws = (await forward.portForward(NS, 'echo', [echoPort], output, errors, input)) as { close(): void };
      input.write('direct');
      await waitFor('the echo', () => output.text === 'DIRECT');
      ws.close();
      assert.equal(errors.text, '');
    } finally {
      local.close();
    }
  });
});
