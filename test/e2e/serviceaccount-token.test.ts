import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

const KUBECTL = execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();

describe('service-account identity in pods', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  before(async () => {
    server = await startServer();
    k = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await k?.exec(['delete', 'namespace', 'app', '--wait=true', '--timeout=30s']);
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('mounts a bound token, the CA and the namespace; an in-pod kubectl is allowed and denied by RBAC', async () => {
    await k.ok(['create', 'namespace', 'app']);
    await waitFor('the default service account and kube-root-ca.crt', async () =>
      (await k.exec(['get', 'serviceaccount', 'default', '-n', 'app'])).code === 0 && (await k.exec(['get', 'configmap', 'kube-root-ca.crt', '-n', 'app'])).code === 0, 30_000);
    await k.ok(['create', 'serviceaccount', 'lister', '-n', 'app']);
    await k.ok(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods', '-n', 'app']);
    await k.ok(['create', 'rolebinding', 'lister', '--role=pod-reader', '--serviceaccount=app:lister', '-n', 'app']);

    // the API server for in-cluster config: this test's, on loopback (the process runtime shares the host network)
    const env = [
      { name: 'KUBERNETES_SERVICE_HOST', value: '127.0.0.1' },
      { name: 'KUBERNETES_SERVICE_PORT', value: String(server.port) },
      { name: 'HOME', value: '/nonexistent' },
    ];
    const script = `cat /var/run/secrets/kubernetes.io/serviceaccount/namespace; echo; ${KUBECTL} get pods -n app -o name; ${KUBECTL} get pods -n default 2>&1; true`;
    const pod = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'client', namespace: 'app' },
      spec: { serviceAccountName: 'lister', restartPolicy: 'Never', containers: [{ name: 'client', image: 'busybox', command: ['sh', '-c', script], env }] },
    };
    await k.ok(['create', '-f', '-'], { input: JSON.stringify(pod) });
    const created = await k.json<{ spec: { volumes: { name: string; projected?: { sources: unknown[] } }[]; containers: { volumeMounts: { mountPath: string; readOnly: boolean }[] }[] } }>(['get', 'pod', 'client', '-n', 'app']);
    assert.match(created.spec.volumes[0].name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(created.spec.volumes[0].projected?.sources, [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ]);
    assert.deepEqual(created.spec.containers[0].volumeMounts.at(-1), { name: created.spec.volumes[0].name, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true });

    await waitFor('the client pod to finish', async () => (await k.exec(['get', 'pod', 'client', '-n', 'app', '-o', 'jsonpath={.status.phase}'])).stdout === 'Succeeded', 60_000);
    const logs = await k.ok(['logs', 'client', '-n', 'app']);
    assert.match(logs, /^app\npod\/client\n/);
    assert.match(logs, /pods is forbidden: User "system:serviceaccount:app:lister" cannot list resource "pods" in API group "" in the namespace "default"/);
  });

  it('defaults serviceAccountName, honours automountServiceAccountToken: false, refuses a missing account', async () => {
    await k.ok(['run', 'plain', '-n', 'app', '--image=busybox', '--restart=Never', '--', 'true']);
    assert.equal(await k.ok(['get', 'pod', 'plain', '-n', 'app', '-o', 'jsonpath={.spec.serviceAccountName}']), 'default');
    await k.ok(['run', 'nomount', '-n', 'app', '--image=busybox', '--restart=Never', '--overrides={"spec":{"automountServiceAccountToken":false}}', '--', 'true']);
    assert.equal(await k.ok(['get', 'pod', 'nomount', '-n', 'app', '-o', 'jsonpath={.spec.volumes}']), '');
    assert.match(
      await k.fails(['run', 'ghost', '-n', 'app', '--image=busybox', '--restart=Never', '--overrides={"spec":{"serviceAccountName":"ghost"}}', '--', 'true']),
      /pods "ghost" is forbidden: error looking up service account app\/ghost: serviceaccount "ghost" not found/,
    );
  });
});
