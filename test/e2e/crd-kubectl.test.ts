import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, ROOT, startServer, waitFor, type ServerProcess } from './harness.js';

// CustomResourceDefinitions with the real kubectl: CRDs shaped like
// cert-manager's and prometheus-operator's are accepted (client- and
// server-side apply), get their names accepted and become Established;
// invalid and clashing ones are refused or reported as upstream does.

const CRDS = join(ROOT, 'test/e2e/crds');

describe('CustomResourceDefinitions with kubectl', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer();
    k = kubectlFor(server.kubeconfig);
  });

  after(async () => {
    await server?.stop();
    await removeDir(server?.dataDir);
  });

  it('applies operator-shaped CRDs and establishes them', async () => {
    const out = await k.ok(['apply', '-f', CRDS]);
    assert.match(out, /customresourcedefinition.apiextensions.k8s.io\/certificates.cert.skiff.dev created/);
    await k.ok(['wait', '--for', 'condition=Established', '--timeout', '20s', 'crd', '--all']);
    const crd = await k.json<{ status: { acceptedNames: { shortNames: string[] }; storedVersions: string[]; conditions: { type: string; reason: string }[] } }>([
      'get',
      'crd',
      'certificates.cert.skiff.dev',
    ]);
    assert.deepEqual(crd.status.acceptedNames.shortNames, ['cert', 'certs']);
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    assert.deepEqual(
      crd.status.conditions.map((c) => `${c.type}=${c.reason}`),
      ['NamesAccepted=NoConflicts', 'Established=InitialNamesAccepted'],
    );
    const table = await k.ok(['get', 'crds']);
    assert.match(table, /^NAME\s+CREATED AT\n/);
    assert.match(table, /servicemonitors.monitoring.skiff.dev/);
    // again, server-side: nothing to change
    assert.match(await k.ok(['apply', '--server-side', '-f', CRDS]), /serverside-applied/);
  });

  it('refuses a non-structural CRD with every failing field', async () => {
    const bad = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: bads.example.com}
spec:
  group: example.com
  names: {kind: Bad, plural: bads}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            properties:
              list: {type: array}
`;
    const err = await k.fails(['apply', '-f', '-'], { input: bad });
    assert.match(err, /The CustomResourceDefinition "bads.example.com" is invalid/);
    assert.match(err, /spec.versions\[0\].schema.openAPIV3Schema.properties\[spec\].type: Required value: must not be empty for specified object fields/);
    assert.match(err, /spec.versions\[0\].schema.openAPIV3Schema.properties\[spec\].properties\[list\].items: Required value: must be specified/);
  });

  it('reports a names conflict on the later CRD', async () => {
    const clash = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: issuers.cert.skiff.dev}
spec:
  group: cert.skiff.dev
  names: {kind: Issuer, plural: issuers, shortNames: [cert]}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
`;
    await k.ok(['apply', '-f', '-'], { input: clash });
    await k.ok(['wait', '--for', 'condition=NamesAccepted=False', '--timeout', '20s', 'crd/issuers.cert.skiff.dev']);
    const msg = await k.ok(['get', 'crd', 'issuers.cert.skiff.dev', '-o', 'jsonpath={.status.conditions[?(@.type=="NamesAccepted")].message}']);
    assert.equal(msg, '"cert" is already in use');
  });

  it('serves custom resources with printer columns, pruning and defaults', async () => {
    const cert = `apiVersion: cert.skiff.dev/v1
kind: Certificate
metadata: {name: web, namespace: default}
spec:
  secretName: web-tls
  issuerRef: {name: letsencrypt}
  dnsNames: [example.com]
`;
    await waitFor('certificates served', async () => (await k.exec(['get', 'certificates'])).code === 0);
    assert.match(await k.ok(['apply', '-f', '-'], { input: cert }), /certificate.cert.skiff.dev\/web created/);
    const table = await k.ok(['get', 'certificates']);
    assert.match(table, /^NAME\s+READY\s+SECRET\s+AGE\n/);
    assert.match(table, /\nweb\s+web-tls\s+\d+s\n/);
    assert.match(await k.ok(['get', 'cert', 'web', '-o', 'wide']), /^NAME\s+READY\s+SECRET\s+ISSUER\s+STATUS\s+AGE\n/);
    const obj = await k.json<{ spec: { issuerRef: { kind: string } }; metadata: { generation: number } }>(['get', 'cert', 'web']);
    assert.equal(obj.spec.issuerRef.kind, 'Issuer', 'schema default applied');
    assert.equal(obj.metadata.generation, 1);
    // unknown fields: kubectl asks for Strict validation
    const strict = await k.fails(['apply', '-f', '-'], { input: cert.replace('secretName: web-tls', 'secretName: web-tls\n  bogus: 1') });
    assert.match(strict, /unknown field "spec.bogus"/);
    const api = await k.ok(['api-resources', '--api-group', 'cert.skiff.dev']);
    assert.match(api, /certificates\s+cert,certs\s+cert.skiff.dev\/v1\s+true\s+Certificate/);
  });

  it('refuses a custom resource violating its schema with every failing field', async () => {
    const bad = `apiVersion: cert.skiff.dev/v1
kind: Certificate
metadata: {name: bad, namespace: default}
spec:
  secretName: ""
  duration: 1d
  usages: [teleport]
  privateKey: {size: big}
`;
    const err = await k.fails(['apply', '-f', '-'], { input: bad });
    assert.match(err, /The Certificate "bad" is invalid: \n/);
    for (const line of [
      '* spec.issuerRef: Required value',
      `* spec.duration: Invalid value: "1d": spec.duration in body should match '^([0-9]+(\\.[0-9]+)?(h|m|s))+$'`,
      '* spec.privateKey.size: Invalid value: "string": spec.privateKey.size in body must be of type integer: "string"',
      '* spec.secretName: Invalid value: "": spec.secretName in body should be at least 1 chars long',
      '* spec.usages[0]: Unsupported value: "teleport": supported values: "signing", "digital signature", "key encipherment", "server auth", "client auth"',
    ]) {
      assert.ok(err.includes(line), `missing ${line} in\n${err}`);
    }
  });

  it('changes status only through /status; strategic merge patch is 415', async () => {
    await k.ok(['patch', 'cert', 'web', '--type', 'merge', '-p', '{"status":{"revision":3}}']);
    assert.equal(await k.ok(['get', 'cert', 'web', '-o', 'jsonpath={.status}']), '');
    await k.ok(['patch', 'cert', 'web', '--subresource', 'status', '--type', 'merge', '-p', '{"status":{"revision":3,"conditions":[{"type":"Ready","status":"True","message":"ok"}]}}']);
    assert.match(await k.ok(['get', 'cert', 'web']), /\nweb\s+True\s+web-tls/);
    const smp = await k.fails(['patch', 'cert', 'web', '-p', '{"spec":{"isCA":true}}']);
    assert.match(smp, /the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/);
    await k.ok(['patch', 'cert', 'web', '--type', 'json', '-p', '[{"op":"add","path":"/spec/isCA","value":true}]']);
    const after = await k.json<{ spec: { isCA: boolean }; metadata: { generation: number } }>(['get', 'cert', 'web']);
    assert.equal(after.spec.isCA, true);
    assert.equal(after.metadata.generation, 2);
  });

  it('scales a cluster-scoped custom resource through its scale subresource', async () => {
    await waitFor('widgets served', async () => (await k.exec(['get', 'widgets'])).code === 0);
    await k.ok(['apply', '-f', '-'], { input: 'apiVersion: example.skiff.dev/v1\nkind: Widget\nmetadata: {name: w}\nspec: {color: red}\n' });
    // printer columns replace the default Age column
    assert.match(await k.ok(['get', 'widget', 'w']), /^NAME\s+REPLICAS\s+COLOR\nw\s+1\s+red\n/);
    assert.match(await k.ok(['scale', 'widget', 'w', '--replicas', '4']), /widget.example.skiff.dev\/w scaled/);
    assert.equal(await k.ok(['get', 'widget', 'w', '-o', 'jsonpath={.spec.replicas}']), '4');
  });

  it('deleting a CRD deletes its custom resources and its discovery', async () => {
    await k.ok(['delete', 'crd', 'certificates.cert.skiff.dev', '--timeout', '30s']);
    await waitFor('certificates gone from discovery', async () => !/^certificates\s/m.test(await k.ok(['api-resources'])));
    // the short name "cert" is free now: the clashing Issuer CRD gets its names
    await k.ok(['wait', '--for', 'condition=Established', '--timeout', '20s', 'crd/issuers.cert.skiff.dev']);
    await k.ok(['delete', 'crd', 'issuers.cert.skiff.dev', '--timeout', '30s']);
    // a new CRD of the same name starts empty: the old custom resources were deleted with the old CRD
    await k.ok(['apply', '-f', join(CRDS, 'certificates.yaml')]);
    await k.ok(['wait', '--for', 'condition=Established', '--timeout', '20s', 'crd/certificates.cert.skiff.dev']);
    await waitFor('certificates served again', async () => (await k.exec(['get', 'certificates', '-A'])).code === 0);
    assert.match(await k.ok(['get', 'certificates', '-A']), /^$/);
  });
});
