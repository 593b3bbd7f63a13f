import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, type ServerProcess } from './harness.js';

describe('networking.k8s.io/v1 with kubectl', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer({ args: ['--disable', 'all'] });
    k = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('serves Ingress, IngressClass and NetworkPolicy: create, apply, tables, discovery, 422 on bad input', async () => {
    assert.match(await k.ok(['api-resources', '--api-group=networking.k8s.io']), /ingressclasses[\s\S]*ingresses\s+ing\s+networking\.k8s\.io\/v1\s+true\s+Ingress[\s\S]*networkpolicies\s+netpol/);
    await k.ok(['create', 'ingress', 'web', '--class=nginx', '--rule=foo.com/bar=svc1:8080,tls=my-cert']);
    const manifests = [
      { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } },
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'allow-web' },
        spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }], ports: [{ port: 8080 }] }] },
      },
    ];
    await k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests }) });

    const ing = await k.ok(['get', 'ingress', 'web']);
    assert.match(ing, /^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\nweb\s+nginx\s+foo\.com\s+80, 443\s+\d+s\n$/);
    assert.match(await k.ok(['get', 'ingressclass']), /^NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\nnginx\s+k8s\.io\/ingress-nginx\s+<none>\s+\d+s\n$/);
    assert.match(await k.ok(['get', 'netpol']), /^NAME\s+POD-SELECTOR\s+AGE\nallow-web\s+app=web\s+\d+s\n$/);
    const np = await k.json<{ spec: { policyTypes: string[]; ingress: { ports: { protocol: string }[] }[] } }>(['get', 'networkpolicy', 'allow-web']);
    assert.deepEqual(np.spec.policyTypes, ['Ingress']);
    assert.equal(np.spec.ingress[0].ports[0].protocol, 'TCP');

    const bad = await k.fails(['apply', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'bad' }, spec: { podSelector: { matchExpressions: [{ key: 'a', operator: 'Nope' }] }, ingress: [{ from: [{}] }] } }),
    });
    assert.match(bad, /The NetworkPolicy "bad" is invalid/);
    assert.match(bad, /spec\.ingress\[0\]\.from\[0\]: Required value: must specify a peer/);
    assert.match(bad, /spec\.podSelector\.matchExpressions\[0\]\.operator/);
    await k.ok(['delete', 'ingress', 'web']);
  });
});
