import assert from 'node:assert/strict';
import https from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeProtobufObject } from '../../src/api/protobuf/decode-protobuf-object.js';
import { decodeEnvelope, protobufjsRoot } from '../../src/api/protobuf/protobufjs-root.test-helper.js';
import { kubectlFor, removeDir, ROOT, startServer, waitFor, type ServerProcess } from './harness.js';
import { clientFromKubeconfig } from './raw-client.js';

// Protobuf on the wire, as client-go-based components negotiate it
// (`Accept: application/vnd.kubernetes.protobuf, application/json`): get,
// list and watch of built-in kinds come back as protobuf (read here both by
// skiff's decoder and by protobufjs), Status errors too; custom resources
// fall back to JSON (406 when JSON is not acceptable); kubectl, which asks
// for JSON and Tables, is unaffected.

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const CLIENT_GO_ACCEPT = `${PROTOBUF}, application/json`;

describe('protobuf responses', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  let client: ReturnType<typeof clientFromKubeconfig>;
  const root = protobufjsRoot();

  before(async () => {
    server = await startServer({ command: 'apiserver' });
    k = kubectlFor(server.kubeconfig);
    client = clientFromKubeconfig(server.kubeconfig);
    await k.ok(['create', 'configmap', 'settings', '--from-literal=color=blue', '--from-literal=size=L']);
    await k.ok(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2']);
  });

  after(async () => {
    client?.close();
    await server?.stop();
    await removeDir(server?.dataDir);
  });

  const get = (path: string, accept = CLIENT_GO_ACCEPT) => client.send('GET', path, undefined, { Accept: accept });

  it('get: a built-in object as protobuf, byte-for-byte the JSON the server sends', async () => {
    const res = await get('/api/v1/namespaces/default/configmaps/settings');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], PROTOBUF);
    assert.equal(res.bytes.subarray(0, 4).toString('latin1'), 'k8s\0');
    const env = decodeEnvelope(root, res.bytes);
    assert.deepEqual([env.apiVersion, env.kind], ['v1', 'ConfigMap']);
    const cm = root.lookupType('ConfigMap').toObject(root.lookupType('ConfigMap').decode(env.raw)) as { data_2: Record<string, string> };
    assert.deepEqual(cm.data_2, { color: 'blue', size: 'L' });
    // the same object as JSON, and as protobuf decoded back to JSON
    const json = await get('/api/v1/namespaces/default/configmaps/settings', 'application/json');
    assert.deepEqual(decodeProtobufObject(res.bytes), JSON.parse(json.body));
  });

  it('list: a built-in list as protobuf; kubectl keeps getting JSON and tables', async () => {
    const res = await get('/apis/apps/v1/namespaces/default/deployments');
    assert.equal(res.headers['content-type'], PROTOBUF);
    const list = decodeProtobufObject(res.bytes) as unknown as { kind: string; metadata: { resourceVersion: string }; items: { metadata: { name: string }; spec: { replicas: number } }[] };
    assert.equal(list.kind, 'DeploymentList');
    assert.ok(Number(list.metadata.resourceVersion) > 0);
    assert.deepEqual(list.items.map((d) => [d.metadata.name, d.spec.replicas]), [['web', 2]]);
    const viaKubectl = await k.json<{ items: { metadata: { name: string } }[] }>(['get', 'deployments']);
    assert.deepEqual(viaKubectl.items.map((d) => d.metadata.name), ['web']);
    const table = await k.ok(['get', 'configmaps']);
    assert.match(table, /^NAME\s+DATA\s+AGE$/m);
    assert.match(table, /^settings\s+2\s+/m);
  });

  it('PartialObjectMetadata as protobuf (what metadata informers ask for)', async () => {
    const res = await get('/api/v1/namespaces/default/configmaps', `${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`);
    assert.match(String(res.headers['content-type']), /^application\/vnd\.kubernetes\.protobuf;as=PartialObjectMetadata/);
    const list = decodeProtobufObject(res.bytes) as unknown as { kind: string; items: { metadata: { name: string } }[] };
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.ok(list.items.some((i) => i.metadata.name === 'settings'));
  });

  it('watch: length-prefixed WatchEvent frames with the object in its envelope', async () => {
    const rv = (decodeProtobufObject((await get('/api/v1/namespaces/default/configmaps')).bytes).metadata as { resourceVersion: string }).resourceVersion;
    const events: { type: string; name: string; kind: string }[] = [];
    let contentType = '';
    const req = https.get(
      { ...client.target(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`), headers: { Accept: CLIENT_GO_ACCEPT } },
      (res) => {
        contentType = String(res.headers['content-type']);
        let buf = Buffer.alloc(0);
        res.on('data', (chunk: Buffer) => {
          buf = Buffer.concat([buf, chunk]);
          while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
            const frame = buf.subarray(4, 4 + buf.readUInt32BE(0));
            buf = buf.subarray(4 + frame.length);
            const ev = root.lookupType('WatchEvent').decode(frame) as unknown as { type: string; object: { raw: Uint8Array } };
            const obj = decodeProtobufObject(ev.object.raw);
            events.push({ type: ev.type, name: obj.metadata?.name ?? '', kind: obj.kind ?? '' });
          }
        });
      },
    );
    try {
      await waitFor('the watch to open', () => contentType !== '');
      assert.equal(contentType, `${PROTOBUF};stream=watch`);
      await k.ok(['create', 'configmap', 'watched', '--from-literal=a=b']);
      await k.ok(['delete', 'configmap', 'watched']);
      const seen = await waitFor('ADDED and DELETED frames', () => (events.length >= 2 ? events : undefined));
      assert.deepEqual(seen, [
        { type: 'ADDED', name: 'watched', kind: 'ConfigMap' },
        { type: 'DELETED', name: 'watched', kind: 'ConfigMap' },
      ]);
    } finally {
      req.destroy();
    }
  });

  it('errors: a Status in protobuf when the client prefers protobuf, JSON otherwise', async () => {
    const res = await get('/api/v1/namespaces/default/configmaps/missing');
    assert.equal(res.status, 404);
    assert.equal(res.headers['content-type'], PROTOBUF);
    const status = decodeProtobufObject(res.bytes) as unknown as { kind: string; reason: string; code: number; message: string };
    assert.deepEqual([status.kind, status.reason, status.code, status.message], ['Status', 'NotFound', 404, 'configmaps "missing" not found']);
    const json = await get('/api/v1/namespaces/default/configmaps/missing', 'application/json');
    assert.equal((JSON.parse(json.body) as { reason: string }).reason, 'NotFound');
  });

  it('custom resources: JSON when JSON is acceptable, 406 when only protobuf is', async () => {
    await k.ok(['apply', '-f', join(ROOT, 'test/e2e/crds/widgets.yaml')]);
    await k.ok(['wait', '--for', 'condition=Established', '--timeout', '20s', 'crd', 'widgets.example.skiff.dev']);
    const list = await waitFor('widgets to be served', async () => {
      const r = await get('/apis/example.skiff.dev/v1/widgets');
      return r.status === 200 ? r : undefined;
    });
    assert.equal(list.headers['content-type'], 'application/json');
    assert.equal((JSON.parse(list.body) as { kind: string }).kind, 'WidgetList');
    const only = await get('/apis/example.skiff.dev/v1/widgets', PROTOBUF);
    assert.equal(only.status, 406);
    const status = decodeProtobufObject(only.bytes) as unknown as { reason: string };
    assert.equal(status.reason, 'NotAcceptable');
    // their metadata still comes as protobuf, as upstream's
    const meta = await get('/apis/example.skiff.dev/v1/widgets', `${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`);
    assert.equal(meta.status, 200);
    assert.equal(decodeProtobufObject(meta.bytes).kind, 'PartialObjectMetadataList');
  });
});
