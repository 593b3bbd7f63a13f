import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';
import { sendJson, startTlsBackend, type TlsBackend } from './support/tls-backend.js';

// A two-version CRD with the real kubectl: v1 {host, port} is stored, v2
// {address} is served too, and a conversion webhook written here (node
// https, its own CA) converts between them: created as v1, read as v2.

interface Obj {
  apiVersion: string;
  spec: Record<string, unknown>;
}

function convert(obj: Obj, to: string): Obj {
  if (to.endsWith('/v2')) return { ...obj, apiVersion: to, spec: { address: `${String(obj.spec.host)}:${String(obj.spec.port)}` } };
  const [host, port] = String(obj.spec.address).split(':');
  return { ...obj, apiVersion: to, spec: { host, port: Number(port) } };
}

describe('CRD conversion webhook with kubectl', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  let converter: TlsBackend;
  let broken = false;

  before(async () => {
    converter = await startTlsBackend(['converter.default.svc'], (_req, body, res) => {
      const { uid, desiredAPIVersion, objects } = (JSON.parse(body) as { request: { uid: string; desiredAPIVersion: string; objects: Obj[] } }).request;
      const response = broken ? { uid, result: { status: 'Failure', message: 'the converter is down for maintenance' } } : { uid, result: { status: 'Success' }, convertedObjects: objects.map((o) => convert(o, desiredAPIVersion)) };
      sendJson(res, 200, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response });
    });
    server = await startServer({ command: 'apiserver' });
    k = kubectlFor(server.kubeconfig);
  });

  after(async () => {
    await server?.stop();
    await removeDir(server?.dataDir);
    await converter?.close();
  });

  it('creates as v1 and reads as v2 through the webhook (reached through a Service)', async () => {
    const props = (p: string) => `{type: object, properties: {spec: {type: object, properties: ${p}}}}`;
    await k.ok(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: Service
metadata: {name: converter, namespace: default}
spec: {type: ExternalName, externalName: localhost, ports: [{port: ${converter.port}}]}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: endpoints.net.skiff.dev}
spec:
  group: net.skiff.dev
  scope: Namespaced
  names: {plural: endpoints, singular: endpoint, kind: Endpoint, shortNames: [nep]}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        service: {namespace: default, name: converter, path: /convert, port: ${converter.port}}
        caBundle: ${converter.caBundle}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: ${props('{host: {type: string}, port: {type: integer}}')}}}
  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: ${props('{address: {type: string}}')}}}
`,
    });
    await k.ok(['wait', '--for', 'condition=Established', '--timeout', '30s', 'crd/endpoints.net.skiff.dev']);
    // v2 is the preferred version (discovery orders versions by priority)
    await waitFor('both versions in discovery', async () => /endpoints\s+nep\s+net\.skiff\.dev\/v2\s+true\s+Endpoint/.test(await k.ok(['api-resources', '--api-group', 'net.skiff.dev'])));
    await k.ok(['apply', '-f', '-'], { input: 'apiVersion: net.skiff.dev/v1\nkind: Endpoint\nmetadata: {name: web}\nspec: {host: example.org, port: 8443}\n' });
    const v2 = await k.json<Obj>(['get', 'endpoints.v2.net.skiff.dev', 'web']);
    assert.equal(v2.apiVersion, 'net.skiff.dev/v2');
    assert.deepEqual(v2.spec, { address: 'example.org:8443' });
    const v1 = await k.json<Obj>(['get', 'endpoints.v1.net.skiff.dev', 'web']);
    assert.deepEqual(v1.spec, { host: 'example.org', port: 8443 });
    const crd = await k.json<{ status: { storedVersions: string[] } }>(['get', 'crd', 'endpoints.net.skiff.dev']);
    assert.deepEqual(crd.status.storedVersions, ['v1']);
  });

  it('a failing conversion is a 500 naming the webhook; the stored object is untouched', async () => {
    broken = true;
    try {
      const out = await k.fails(['get', 'endpoints.v2.net.skiff.dev', 'web']);
      assert.match(out, /Error from server \(InternalError\): Internal error occurred: conversion webhook for net\.skiff\.dev\/v1, Kind=Endpoint returned invalid response: the converter is down for maintenance/);
    } finally {
      broken = false;
    }
    assert.deepEqual((await k.json<Obj>(['get', 'endpoints.v1.net.skiff.dev', 'web'])).spec, { host: 'example.org', port: 8443 });
  });
});
