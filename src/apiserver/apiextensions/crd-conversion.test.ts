import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { KubeObject } from '../../api/object.js';
import { CUSTOM_RESOURCE_DEFINITIONS } from '../../api/resource-refs.js';
import { compareKubeAwareVersions } from '../../api/version-priority.js';
import { generateCertificateAuthority, issueCertificate } from '../pki/issue-certificate.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';

type Widget = KubeObject & { spec?: Record<string, unknown> };

const schema = (props: Record<string, object>) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } } });

function crd(name: string, group: string, conversion: CustomResourceDefinition['spec']['conversion']): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${name}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: name, kind: 'Widget' },
      conversion,
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema({ host: { type: 'string' }, port: { type: 'integer' } }) },
        { name: 'v2', served: true, storage: false, schema: schema({ address: { type: 'string' } }) },
      ],
    },
  };
}

/** v1 {host, port} ⇄ v2 {address: "host:port"}. */
function convert(obj: Widget, to: string): Widget {
  const spec = obj.spec ?? {};
  if (to.endsWith('/v2')) return { ...obj, apiVersion: to, spec: { address: `${String(spec.host)}:${String(spec.port)}` } };
  const [host, port] = String(spec.address).split(':');
  return { ...obj, apiVersion: to, spec: { host, port: Number(port) } };
}

describe('multi-version CRDs', () => {
  let api: TestApiServer;
  let server: https.Server;
  let caBundle = '';
  let port = 0;
  let broken = false;

  before(async () => {
    api = await startTestApiServer({ namespaces: ['w'] });
    const ca = await generateCertificateAuthority('conversion-ca');
    const cert = await issueCertificate(ca, { commonName: 'conv', hosts: ['127.0.0.1'], usages: ['serverAuth'] });
    caBundle = Buffer.from(ca.certPem).toString('base64');
    server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const review = JSON.parse(body) as { request: { uid: string; desiredAPIVersion: string; objects: Widget[] } };
        const { uid, desiredAPIVersion, objects } = review.request;
        const response = broken ? { uid, result: { status: 'Failure', message: 'converter is broken' } } : { uid, result: { status: 'Success' }, convertedObjects: objects.map((o) => convert(o, desiredAPIVersion)) };
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await api.stop();
  });

  async function established(name: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const got = await api.client.resource<CustomResourceDefinition>(CUSTOM_RESOURCE_DEFINITIONS).get(name);
      if (got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) {
        // and the registry serves both versions
        const ok = await Promise.all(['v1', 'v2'].map((v) => api.client.resource({ group: got.spec.group, version: v, resource: got.spec.names.plural }).namespace('w').list().then(() => true, () => false)));
        if (ok.every(Boolean)) return;
      }
      if (Date.now() > deadline) throw new Error(`${name} not served in time`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('orders versions as upstream (GA, beta, alpha; higher first)', () => {
    assert.deepEqual(['v1alpha1', 'v1', 'foo', 'v2beta1', 'v2', 'v1beta2', 'v11alpha2'].sort(compareKubeAwareVersions), ['v2', 'v1', 'v2beta1', 'v1beta2', 'v11alpha2', 'v1alpha1', 'foo']);
  });

  it('Webhook: created as v1, read, listed and watched as v2; written as v2, stored as v1', async () => {
    const def = crd('widgets', 'conv.example.com', { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle } } });
    await api.client.resource(CUSTOM_RESOURCE_DEFINITIONS).create(def);
    await established(def.metadata!.name!);
    const v1 = api.client.resource<Widget>({ group: 'conv.example.com', version: 'v1', resource: 'widgets' }).namespace('w');
    const v2 = api.client.resource<Widget>({ group: 'conv.example.com', version: 'v2', resource: 'widgets' }).namespace('w');
    const created = await v1.create({ apiVersion: 'conv.example.com/v1', kind: 'Widget', metadata: { name: 'a' }, spec: { host: 'example.org', port: 443 } });
    const read = await v2.get('a');
    assert.equal(read.apiVersion, 'conv.example.com/v2');
    assert.deepEqual(read.spec, { address: 'example.org:443' });
    assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);
    assert.deepEqual((await v2.list()).items.map((o) => o.spec), [{ address: 'example.org:443' }]);
    // written through v2, kept in v1
    await v2.create({ apiVersion: 'conv.example.com/v2', kind: 'Widget', metadata: { name: 'b' }, spec: { address: 'b.example.org:80' } });
    const stored = await api.storage.get('/registry/conv.example.com/widgets/w/b');
    const storedObj = JSON.parse(Buffer.from(stored.kv!.value).toString()) as Widget;
    assert.equal(storedObj.apiVersion, 'conv.example.com/v1');
    assert.deepEqual(storedObj.spec, { host: 'b.example.org', port: 80 });
    // a watch in v2 sees v2 objects
    const ac = new AbortController();
    for await (const ev of v2.watch({ resourceVersion: created.metadata!.resourceVersion, signal: ac.signal })) {
      assert.equal(ev.object.apiVersion, 'conv.example.com/v2');
      assert.deepEqual(ev.object.spec, { address: 'b.example.org:80' });
      ac.abort();
      break;
    }
    const crdNow = await api.client.resource<CustomResourceDefinition>(CUSTOM_RESOURCE_DEFINITIONS).get(def.metadata!.name!);
    assert.deepEqual(crdNow.status?.storedVersions, ['v1']);
    // a failing webhook is a 500 naming the conversion; stored data is untouched
    broken = true;
    await assert.rejects(v2.get('a'), (e: Error & { code?: number }) => e.code === 500 && /conversion webhook for conv\.example\.com\/v1, Kind=Widget returned invalid response: converter is broken/.test(e.message));
    broken = false;
    assert.deepEqual((await v1.get('a')).spec, { host: 'example.org', port: 443 });
  });

  it('None: only apiVersion changes', async () => {
    const def = crd('gadgets', 'none.example.com', { strategy: 'None' });
    def.spec.versions[1].schema = def.spec.versions[0].schema;
    await api.client.resource(CUSTOM_RESOURCE_DEFINITIONS).create(def);
    await established(def.metadata!.name!);
    await api.client.resource<Widget>({ group: 'none.example.com', version: 'v2', resource: 'gadgets' }).namespace('w').create({ apiVersion: 'none.example.com/v2', kind: 'Widget', metadata: { name: 'g' }, spec: { host: 'h', port: 1 } });
    const got = await api.client.resource<Widget>({ group: 'none.example.com', version: 'v1', resource: 'gadgets' }).namespace('w').get('g');
    assert.equal(got.apiVersion, 'none.example.com/v1');
    assert.deepEqual(got.spec, { host: 'h', port: 1 });
  });
});
