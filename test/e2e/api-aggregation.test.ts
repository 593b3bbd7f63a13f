import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';
import { sendJson, startTlsBackend, type TlsBackend } from './support/tls-backend.js';

// API aggregation with the real kubectl: an extension API server written
// here (node https, a CA of its own, serving wardle.example.com/v1alpha1
// flunders) behind a Service, registered with an APIService. kubectl finds
// the resource through discovery and lists it through the aggregator; the
// backend checks that requests come with the front-proxy client certificate
// (verified against the CA skiff publishes in extension-apiserver-authentication)
// and the user in X-Remote-User. Once the backend stops, the APIService is
// Available=False and its group answers 503 while the rest of the API works.

const GROUP = 'wardle.example.com';
const GV = `${GROUP}/v1alpha1`;
const METRICS_GV = 'metrics.k8s.io/v1beta1';

interface Seen {
  user: string | undefined;
  groups: string[];
  proxyName: string | undefined;
  trusted: boolean;
}

describe('API aggregation with kubectl', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  let backend: TlsBackend;
  let frontProxyCa: X509Certificate | undefined;
  const seen: Seen[] = [];

  const identify = (req: IncomingMessage): Seen => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const cert = peer?.raw ? new X509Certificate(peer.raw) : undefined;
    return {
      user: req.headers['x-remote-user'] as string | undefined,
      groups: req.rawHeaders.filter((_, i, all) => i % 2 === 1 && all[i - 1].toLowerCase() === 'x-remote-group'),
      proxyName: cert ? /CN=([^\n]*)/.exec(cert.subject)?.[1] : undefined,
      trusted: Boolean(cert && frontProxyCa && cert.checkIssued(frontProxyCa) && cert.verify(frontProxyCa.publicKey)),
    };
  };

  before(async () => {
    backend = await startTlsBackend(
      ['wardle.default.svc'],
      (req, _body, res) => {
        const who = identify(req);
        // an extension API server believes only its front proxy (requestheader-client-ca-file)
        if (!who.trusted) return sendJson(res, 401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 });
        seen.push(who);
        const path = (req.url ?? '').split('?')[0];
        if (path === `/apis/${GV}`) {
          return sendJson(res, 200, {
            kind: 'APIResourceList',
            apiVersion: 'v1',
            groupVersion: GV,
            resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'], shortNames: ['fl'] }],
          });
        }
        if (path === `/apis/${GV}/namespaces/default/flunders`) {
          const items = ['alpha', 'beta'].map((name) => ({ apiVersion: GV, kind: 'Flunder', metadata: { name, namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' } }));
          if ((req.headers.accept ?? '').includes('as=Table')) {
            return sendJson(res, 200, {
              kind: 'Table',
              apiVersion: 'meta.k8s.io/v1',
              metadata: {},
              columnDefinitions: [{ name: 'Name', type: 'string', format: 'name', description: 'name' }, { name: 'Served-By', type: 'string', description: 'who answered' }],
              rows: items.map((o) => ({ cells: [o.metadata.name, 'wardle'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata } })),
            });
          }
          return sendJson(res, 200, { kind: 'FlunderList', apiVersion: GV, metadata: {}, items });
        }
        // a metrics server's answers, for kubectl top through an APIService
        if (path === `/apis/${METRICS_GV}`) {
          return sendJson(res, 200, {
            kind: 'APIResourceList',
            apiVersion: 'v1',
            groupVersion: METRICS_GV,
            resources: [
              { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
              { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
            ],
          });
        }
        if (path === `/apis/${METRICS_GV}/nodes` || path === `/apis/${METRICS_GV}/nodes/ext-node`) {
          const item = { apiVersion: METRICS_GV, kind: 'NodeMetrics', metadata: { name: 'ext-node', creationTimestamp: '2024-01-01T00:00:00Z' }, timestamp: '2024-01-01T00:00:00Z', window: '15s', usage: { cpu: '123m', memory: '456Mi' } };
          return sendJson(res, 200, path.endsWith('/ext-node') ? item : { kind: 'NodeMetricsList', apiVersion: METRICS_GV, metadata: {}, items: [item] });
        }
        sendJson(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
      },
      { requestCert: true },
    );
    server = await startServer({ command: 'apiserver', timeoutMs: 90_000 });
    k = kubectlFor(server.kubeconfig);
  });

  after(async () => {
    await server?.stop();
    await removeDir(server?.dataDir);
    await backend?.close();
  });

  it('publishes the front-proxy CA and request-header settings in extension-apiserver-authentication', async () => {
    const cm = await k.json<{ data: Record<string, string> }>(['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication']);
    assert.match(cm.data['client-ca-file'], /BEGIN CERTIFICATE/);
    assert.deepEqual(JSON.parse(cm.data['requestheader-allowed-names']), ['front-proxy-client']);
    assert.deepEqual(JSON.parse(cm.data['requestheader-username-headers']), ['X-Remote-User']);
    assert.deepEqual(JSON.parse(cm.data['requestheader-group-headers']), ['X-Remote-Group']);
    assert.deepEqual(JSON.parse(cm.data['requestheader-extra-headers-prefix']), ['X-Remote-Extra-']);
    frontProxyCa = new X509Certificate(cm.data['requestheader-client-ca-file']);
    assert.notEqual(cm.data['requestheader-client-ca-file'], cm.data['client-ca-file']);
  });

  it("accepts metrics-server's APIService and reports its missing Service", async () => {
    await k.ok(['apply', '-f', '-'], {
      input: `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  labels: {k8s-app: metrics-server}
  name: v1beta1.metrics.k8s.io
spec:
  group: metrics.k8s.io
  groupPriorityMinimum: 100
  insecureSkipTLSVerify: true
  service: {name: metrics-server, namespace: kube-system}
  version: v1beta1
  versionPriority: 100
`,
    });
    const row = await waitFor('metrics-server APIService to report ServiceNotFound', async () => {
      const out = await k.ok(['get', 'apiservice', 'v1beta1.metrics.k8s.io']);
      return /False \(ServiceNotFound\)/.test(out) ? out : undefined;
    });
    assert.match(row, /NAME\s+SERVICE\s+AVAILABLE\s+AGE/);
    assert.match(row, /v1beta1\.metrics\.k8s\.io\s+kube-system\/metrics-server\s+False \(ServiceNotFound\)/);
    const svc = await k.json<{ status: { conditions: { type: string; message: string }[] } }>(['get', 'apiservice', 'v1beta1.metrics.k8s.io']);
    assert.equal(svc.status.conditions.find((c) => c.type === 'Available')?.message, 'service/metrics-server in "kube-system" is not present');
    await k.ok(['delete', 'apiservice', 'v1beta1.metrics.k8s.io']);
  });

  it('proxies an extension API server: discovery, kubectl get, the user and the front-proxy certificate', async () => {
    await k.ok(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: Service
metadata: {name: wardle, namespace: default}
spec: {type: ExternalName, externalName: localhost, ports: [{port: ${backend.port}}]}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1alpha1.${GROUP}}
spec:
  group: ${GROUP}
  version: v1alpha1
  groupPriorityMinimum: 1000
  versionPriority: 15
  service: {name: wardle, namespace: default, port: ${backend.port}}
  caBundle: ${backend.caBundle}
`,
    });
    await k.ok(['wait', '--for=condition=Available', `apiservice/v1alpha1.${GROUP}`, '--timeout=60s']);
    assert.match(await k.ok(['get', 'apiservices']), new RegExp(`v1alpha1\\.wardle\\.example\\.com\\s+default/wardle\\s+True`));
    const resources = await waitFor('flunders in kubectl api-resources', async () => {
      const out = await k.ok(['api-resources', '--api-group', GROUP]);
      return /flunders/.test(out) ? out : undefined;
    });
    assert.match(resources, /flunders\s+fl\s+wardle\.example\.com\/v1alpha1\s+true\s+Flunder/);
    seen.length = 0;
    const table = await k.ok(['get', 'flunders']);
    assert.match(table, /NAME\s+SERVED-BY/);
    assert.match(table, /alpha\s+wardle/);
    assert.match(table, /beta\s+wardle/);
    const list = await k.json<{ items: { metadata: { name: string } }[] }>(['get', 'fl']);
    assert.deepEqual(
      list.items.map((i) => i.metadata.name),
      ['alpha', 'beta'],
    );
    const listed = seen.filter((s) => s.user !== 'system:kube-aggregator');
    assert.ok(listed.length > 0, 'the backend saw the list requests');
    for (const s of listed) {
      assert.equal(s.user, 'skiff-admin');
      assert.ok(s.groups.includes('system:masters'), `groups ${s.groups.join(',')}`);
      assert.equal(s.proxyName, 'front-proxy-client');
    }
  });

  it('kubectl top goes through an APIService for metrics.k8s.io, ahead of the built-in metrics', async () => {
    await k.ok(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: Node
metadata: {name: ext-node}
status:
  capacity: {cpu: "2", memory: 2Gi}
  allocatable: {cpu: "2", memory: 2Gi}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  service: {name: wardle, namespace: default, port: ${backend.port}}
  caBundle: ${backend.caBundle}
`,
    });
    await k.ok(['wait', '--for=condition=Available', 'apiservice/v1beta1.metrics.k8s.io', '--timeout=60s']);
    const top = await waitFor('kubectl top node to print the extension server\'s figures', async () => {
      const r = await k.exec(['top', 'node', 'ext-node']);
      return r.code === 0 && /ext-node\s+123m/.test(r.stdout) ? r.stdout : undefined;
    });
    assert.match(top, /ext-node\s+123m\s+\S+\s+456Mi/);
    await k.ok(['delete', 'apiservice', 'v1beta1.metrics.k8s.io']);
  });

  it('a stopped backend makes the APIService unavailable and its group 503, while the rest works', async () => {
    await backend.close();
    await waitFor(
      'the APIService to become unavailable',
      async () => {
        const svc = await k.json<{ status: { conditions: { type: string; status: string; reason: string; message: string }[] } }>(['get', 'apiservice', `v1alpha1.${GROUP}`]);
        const c = svc.status.conditions.find((x) => x.type === 'Available');
        return c?.status === 'False' ? c : undefined;
      },
      60_000,
      500,
    ).then((c) => {
      assert.equal(c.reason, 'FailedDiscoveryCheck');
      assert.match(c.message, /^failing or missing response from https:\/\/localhost:\d+\/apis\/wardle\.example\.com\/v1alpha1: /);
    });
    const refused = await k.fails(['get', '--raw', `/apis/${GV}/namespaces/default/flunders`]);
    assert.match(refused, /ServiceUnavailable|the server is currently unable to handle the request/);
    assert.match(await k.ok(['get', 'apiservices']), /v1alpha1\.wardle\.example\.com\s+default\/wardle\s+False \(FailedDiscoveryCheck\)/);
    // the rest of the API is untouched
    await k.ok(['get', 'pods', '-A']);
    await k.ok(['get', 'namespaces']);
  });
});
