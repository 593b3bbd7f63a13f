import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';
import { sendJson, startTlsBackend, type TlsBackend } from './support/tls-backend.js';

// Dynamic admission with the real kubectl: a webhook server written here
// (node https, a CA of its own) is called through a
// MutatingWebhookConfiguration (it adds a label, reached through a Service)
// and a ValidatingWebhookConfiguration (it denies a pod with a message that
// kubectl prints as upstream words it).

interface Review {
  request: { uid: string; object: { metadata: { name: string; labels?: Record<string, string> } } };
}

describe('admission webhooks with kubectl', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  let hooks: TlsBackend;

  before(async () => {
    hooks = await startTlsBackend(['webhooks.default.svc'], (req, body, res) => {
      const review = JSON.parse(body) as Review;
      const { uid, object } = review.request;
      const path = (req.url ?? '').split('?')[0];
      if (path === '/label') {
        const ops = [object.metadata.labels ? { op: 'add', path: '/metadata/labels/webhook', value: 'mutated' } : { op: 'add', path: '/metadata/labels', value: { webhook: 'mutated' } }];
        return sendJson(res, 200, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') } });
      }
      const denied = object.metadata.name.startsWith('forbidden-');
      sendJson(res, 200, {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid, allowed: !denied, ...(denied ? { status: { code: 403, reason: 'Forbidden', message: `pod name ${object.metadata.name} is not allowed here` } } : { warnings: ['checked by the e2e webhook'] }) },
      });
    });
    server = await startServer({ command: 'apiserver' });
    k = kubectlFor(server.kubeconfig);
  });

  after(async () => {
    await server?.stop();
    await removeDir(server?.dataDir);
    await hooks?.close();
  });

  const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {app: web}}
spec:
  containers: [{name: c, image: busybox}]
`;

  it('serves both configuration kinds with their tables', async () => {
    const resources = await k.ok(['api-resources', '--api-group', 'admissionregistration.k8s.io']);
    assert.match(resources, /mutatingwebhookconfigurations\s+admissionregistration\.k8s\.io\/v1\s+false\s+MutatingWebhookConfiguration/);
    assert.match(resources, /validatingwebhookconfigurations\s+admissionregistration\.k8s\.io\/v1\s+false\s+ValidatingWebhookConfiguration/);
    const refused = await k.fails(['apply', '-f', '-'], {
      input: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: bad}
webhooks:
- name: short
  clientConfig: {url: "http://127.0.0.1/x"}
  admissionReviewVersions: [v1]
`,
    });
    assert.match(refused, /The ValidatingWebhookConfiguration "bad" is invalid/);
    assert.match(refused, /webhooks\[0\].name: Invalid value: "short": should be a domain with at least three segments separated by dots/);
    assert.match(refused, /webhooks\[0\].sideEffects: Required value: must specify one of None, NoneOnDryRun/);
  });

  it('a mutating webhook behind a Service adds a label', async () => {
    await k.ok(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: Service
metadata: {name: webhooks, namespace: default}
spec: {type: ExternalName, externalName: localhost, ports: [{port: ${hooks.port}}]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: add-label}
webhooks:
- name: label.e2e.skiff.dev
  clientConfig:
    service: {namespace: default, name: webhooks, path: /label, port: ${hooks.port}}
    caBundle: ${hooks.caBundle}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  objectSelector: {matchLabels: {app: web}}
  sideEffects: None
  admissionReviewVersions: [v1]
`,
    });
    const table = await k.ok(['get', 'mutatingwebhookconfigurations']);
    assert.match(table, /^NAME\s+WEBHOOKS\s+AGE\nadd-label\s+1\s+/);
    // the configuration reaches admission through the API server's watch
    await waitFor('the mutating webhook to label a pod', async () => {
      const name = `probe-${Date.now()}`;
      await k.ok(['create', '-f', '-'], { input: pod(name) });
      const labels = (await k.json<{ metadata: { labels: Record<string, string> } }>(['get', 'pod', name])).metadata.labels;
      return labels.webhook === 'mutated' && labels.app === 'web';
    });
  });

  it('a validating webhook denies a pod; kubectl prints its message as upstream', async () => {
    await k.ok(['apply', '-f', '-'], {
      input: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: deny-names}
webhooks:
- name: names.e2e.skiff.dev
  clientConfig: {url: "${hooks.url('/validate')}", caBundle: ${hooks.caBundle}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods], scope: Namespaced}]
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1]
`,
    });
    const message = await waitFor('the validating webhook to deny a pod', async () => {
      const r = await k.exec(['create', '-f', '-'], { input: pod(`forbidden-${Date.now()}`) });
      return r.code !== 0 ? r.stderr : undefined;
    });
    assert.match(message, /^Error from server \(Forbidden\): error when creating "STDIN": admission webhook "names\.e2e\.skiff\.dev" denied the request: pod name forbidden-\d+ is not allowed here/);
    // an allowed pod passes, with the webhook's warning printed by kubectl
    const ok = await k.exec(['create', '-f', '-'], { input: pod('allowed') });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stderr, /Warning: checked by the e2e webhook/);
  });

  it('a webhook that cannot be reached fails the request under Fail, naming it', async () => {
    await k.ok(['apply', '-f', '-'], {
      input: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: unreachable}
webhooks:
- name: down.e2e.skiff.dev
  clientConfig: {url: "https://127.0.0.1:1/down", caBundle: ${hooks.caBundle}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`,
    });
    const message = await waitFor('the unreachable webhook to fail a request', async () => {
      const r = await k.exec(['create', 'configmap', `cm-${Date.now()}`]);
      return r.code !== 0 ? r.stderr : undefined;
    });
    assert.match(message, /failed to create configmap: Internal error occurred: failed calling webhook "down\.e2e\.skiff\.dev": failed to call webhook: Post "https:\/\/127\.0\.0\.1:1\/down\?timeout=10s": dial tcp 127\.0\.0\.1:1: connect: connection refused/);
    // the configuration itself is never subject to webhooks: it can always be removed
    await k.ok(['delete', 'validatingwebhookconfiguration', 'unreachable']);
  });
});
