import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, ROOT, startServer, type ServerProcess } from './harness.js';

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
});
