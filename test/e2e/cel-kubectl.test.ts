import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, ROOT, startServer, type ServerProcess } from './harness.js';

// x-kubernetes-validations (CEL) on a cert-manager-shaped CRD with the real
// kubectl: rules compile when the CRD is created (a broken rule is refused
// with upstream's message), custom resources violating a rule are 422 with
// upstream's wording, transition rules guard updates, status too.

const ISSUERS = join(ROOT, 'test/e2e/crds-cel/issuers.yaml');

const issuer = (name: string, spec: string) => `apiVersion: acme.skiff.dev/v1
kind: Issuer
metadata: {name: ${name}, namespace: default}
spec:
${spec}
`;

const ACME = `  acme:
    server: https://acme.example.com/directory
    email: ops@example.com
    privateKeySecretRef: {name: acme-key}
    solvers:
    - selector: {dnsNames: [a.example.com, b.example.com], matchLabels: {team: web}}
      http01: {ingress: {class: nginx, podTemplate: {spec: {nodeSelector: {a: b}}}}}
    - dns01: {cnameStrategy: Follow, webhook: {groupName: acme.example.com, solverName: x, config: {any: [1, 2]}}}
  renewBeforePercentage: 25%`;

describe('CEL validation rules with kubectl', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer();
    k = kubectlFor(server.kubeconfig);
    await k.ok(['apply', '-f', ISSUERS]);
    await k.ok(['wait', '--for', 'condition=Established', '--timeout', '30s', 'crd/issuers.acme.skiff.dev']);
  });

  after(async () => {
    await server?.stop();
    await removeDir(server?.dataDir);
  });

  it('accepts a valid custom resource and prints its columns', async () => {
    assert.match(await k.ok(['apply', '-f', '-'], { input: issuer('letsencrypt', ACME) }), /issuer.acme.skiff.dev\/letsencrypt created/);
    const table = await k.ok(['get', 'issuers']);
    assert.match(table, /^NAME\s+READY\s+SERVER\s+AGE\n/);
    assert.match(table, /letsencrypt\s+https:\/\/acme.example.com\/directory/);
  });

  it('refuses a custom resource violating a rule with upstream message', async () => {
    const both = issuer('both', `${ACME}\n  ca: {secretName: ca-key}`);
    const err = await k.fails(['apply', '-f', '-'], { input: both });
    assert.match(err, /The Issuer "both" is invalid: spec: Invalid value: "object": exactly one of acme, ca or selfSigned must be set/);

    const http = issuer('plain', ACME.replace('https://acme.example.com/directory', 'http://acme.example.com'));
    assert.match(await k.fails(['apply', '-f', '-'], { input: http }), /spec.acme: Invalid value: "object": server http:\/\/acme.example.com must be an https URL/);

    const email = issuer('mail', ACME.replace('ops@example.com', 'nobody'));
    assert.match(await k.fails(['apply', '-f', '-'], { input: email }), /spec.acme.email: Forbidden: must be an e-mail address/);

    // every failing field at once, rules on list items included
    const crl = issuer('crl', '  ca: {secretName: ca-key, crlDistributionPoints: ["not a url"]}\n  selfSigned: {}');
    const many = await k.fails(['apply', '-f', '-'], { input: crl });
    assert.match(many, /spec: Invalid value: "object": exactly one of acme, ca or selfSigned must be set/);
    assert.match(many, /spec.ca.crlDistributionPoints: Invalid value: "array": every CRL distribution point must be a URL/);
  });

  it('a transition rule keeps a field immutable on update', async () => {
    const renamed = issuer('letsencrypt', ACME.replace('{name: acme-key}', '{name: other-key}'));
    const err = await k.fails(['apply', '-f', '-'], { input: renamed });
    assert.match(err, /The Issuer "letsencrypt" is invalid: spec.acme.privateKeySecretRef: Invalid value: "object": privateKeySecretRef.name is immutable/);
    // other changes are fine
    await k.ok(['apply', '-f', '-'], { input: issuer('letsencrypt', ACME.replace('ops@example.com', 'admin@example.com')) });
    // and a new object with that name is not a transition
    await k.ok(['apply', '-f', '-'], { input: issuer('second', ACME.replace('{name: acme-key}', '{name: other-key}')) });
  });

  it('checks rules on status updates', async () => {
    const bad = JSON.stringify({ status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    const err = await k.fails(['patch', 'issuer', 'letsencrypt', '--subresource', 'status', '--type', 'merge', '-p', bad]);
    assert.match(err, /status.conditions\[0\]: Invalid value: "object": a True condition needs a reason/);
    const good = JSON.stringify({ status: { conditions: [{ type: 'Ready', status: 'True', reason: 'ACMEAccountRegistered' }] } });
    await k.ok(['patch', 'issuer', 'letsencrypt', '--subresource', 'status', '--type', 'merge', '-p', good]);
    assert.match(await k.ok(['get', 'issuer', 'letsencrypt']), /letsencrypt\s+True\s+https/);
  });

  it('refuses a CRD whose rule does not compile', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: brokens.acme.skiff.dev}
spec:
  group: acme.skiff.dev
  names: {kind: Broken, plural: brokens}
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
            type: object
            x-kubernetes-validations:
            - rule: "self.replicas >"
            properties:
              replicas: {type: integer}
`;
    const err = await k.fails(['apply', '-f', '-'], { input: crd });
    assert.match(
      err,
      /The CustomResourceDefinition "brokens.acme.skiff.dev" is invalid: spec.versions\[0\].schema.openAPIV3Schema.properties\[spec\].x-kubernetes-validations\[0\].rule: Invalid value: apiextensions.ValidationRule\{Rule:"self.replicas >", .*\}: compilation failed: ERROR: <input>:1:\d+: /,
    );
  });
});
