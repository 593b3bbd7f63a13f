import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, type ServerProcess } from './harness.js';

const privilegedPod = (name: string, namespace: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace },
  spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'], securityContext: { privileged: true } }] },
});

describe('policy admission with kubectl: PodSecurity', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer({ args: ['--disable', 'kubelet,scheduler'] });
    k = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('a restricted namespace refuses a privileged pod with upstream message, and admits a compliant one', async () => {
    await k.ok(['create', 'namespace', 'secure']);
    await k.ok(['label', 'namespace', 'secure', 'pod-security.kubernetes.io/enforce=restricted']);
    const refused = await k.fails(['apply', '-f', '-'], { input: JSON.stringify(privilegedPod('priv', 'secure')) });
    assert.match(
      refused,
      /Error from server \(Forbidden\): error when creating "STDIN": pods "priv" is forbidden: violates PodSecurity "restricted:latest": privileged \(container "c" must not set securityContext\.privileged=true\), allowPrivilegeEscalation != false \(container "c" must set securityContext\.allowPrivilegeEscalation=false\), unrestricted capabilities \(container "c" must set securityContext\.capabilities\.drop=\["ALL"\]\), runAsNonRoot != true \(pod or container "c" must set securityContext\.runAsNonRoot=true\), seccompProfile \(pod or container "c" must set securityContext\.seccompProfile\.type to "RuntimeDefault" or "Localhost"\)/,
    );
    const fails = await k.exec(['get', 'pod', 'priv', '-n', 'secure']);
    assert.notEqual(fails.code, 0, 'the refused pod was not stored');
    const compliant = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'ok', namespace: 'secure' },
      spec: {
        securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [{ name: 'c', image: 'busybox', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
      },
    };
    const created = await k.exec(['apply', '-f', '-'], { input: JSON.stringify(compliant) });
    assert.equal(created.code, 0, created.stderr);
    assert.doesNotMatch(created.stderr, /Warning/);
  });

  it('warn gives kubectl "Warning:" lines, for pods and for workload templates; enforce does not apply to workloads', async () => {
    await k.ok(['create', 'namespace', 'warned']);
    await k.ok(['label', 'namespace', 'warned', 'pod-security.kubernetes.io/warn=baseline', 'pod-security.kubernetes.io/warn-version=v1.30']);
    const pod = await k.exec(['apply', '-f', '-'], { input: JSON.stringify(privilegedPod('loud', 'warned')) });
    assert.equal(pod.code, 0, pod.stderr);
    assert.match(pod.stderr, /^Warning: would violate PodSecurity "baseline:v1\.30": privileged \(container "c" must not set securityContext\.privileged=true\)$/m);
    assert.match(pod.stdout, /pod\/loud created/);

    const deploy = await k.exec(['create', 'deployment', 'web', '-n', 'secure', '--image', 'busybox']);
    assert.equal(deploy.code, 0, deploy.stderr);
    assert.match(deploy.stderr, /^Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "busybox" must set securityContext\.allowPrivilegeEscalation=false\)/m);
  });

  it('tightening a namespace enforce level warns about existing pods; bad labels are 422', async () => {
    const label = await k.exec(['label', 'namespace', 'warned', 'pod-security.kubernetes.io/enforce=baseline']);
    assert.equal(label.code, 0, label.stderr);
    assert.match(label.stderr, /Warning: existing pods in namespace "warned" violate the new PodSecurity enforce level "baseline:latest"/);
    assert.match(label.stderr, /Warning: loud: privileged/);
    const bad = await k.fails(['label', 'namespace', 'warned', 'pod-security.kubernetes.io/audit=strict', '--overwrite']);
    assert.match(bad, /metadata\.labels\[pod-security\.kubernetes\.io\/audit\]: Invalid value: "strict": must be one of privileged, baseline, restricted/);
  });
});
