import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

const privilegedPod = (name: string, namespace: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace },
  spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'], securityContext: { privileged: true } }] },
});

describe('policy admission with kubectl: PodSecurity, LimitRanger, ResourceQuota', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer({ args: ['--disable', 'kubelet,scheduler'], timeoutMs: 90_000 });
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

  it('LimitRange defaults land on new pods (with the limit-ranger annotation); max is enforced with upstream message', async () => {
    await k.ok(['create', 'namespace', 'limits']);
    const lr = {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'cpu-mem', namespace: 'limits' },
      spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '128Mi' }, defaultRequest: { cpu: '100m' }, max: { cpu: '1' } }] },
    };
    await k.ok(['apply', '-f', '-'], { input: JSON.stringify(lr) });
    const described = await k.ok(['describe', 'limitrange', 'cpu-mem', '-n', 'limits']);
    assert.match(described, /Container\s+cpu\s+-\s+1\s+100m\s+500m\s+-/);
    await k.ok(['run', 'plain', '-n', 'limits', '--image', 'busybox', '--restart', 'Never']);
    const pod = await k.json<{ metadata: { annotations: Record<string, string> }; spec: { containers: { resources: unknown }[] } }>(['get', 'pod', 'plain', '-n', 'limits']);
    assert.deepEqual(pod.spec.containers[0].resources, { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
    assert.equal(pod.metadata.annotations['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: cpu, memory request for container plain; cpu, memory limit for container plain');
    const big = await k.fails(['run', 'big', '-n', 'limits', '--image', 'busybox', '--restart', 'Never', '--overrides', JSON.stringify({ spec: { containers: [{ name: 'big', image: 'busybox', resources: { limits: { cpu: '2' } } }] } })]);
    assert.match(big, /Error from server \(Forbidden\): pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2/);
  });

  it('ResourceQuota: the controller fills status, the (n+1)th pod is refused with upstream message, get/describe show used/hard, deletes are given back', async () => {
    await k.ok(['create', 'namespace', 'quota']);
    await k.ok(['create', 'quota', 'q', '-n', 'quota', '--hard=pods=2,count/configmaps=5']);
    type Quota = { status?: { hard?: Record<string, string>; used?: Record<string, string> } };
    const used = async (name: string) => (await k.json<Quota>(['get', 'quota', name, '-n', 'quota'])).status?.used;
    // the quota controller fills status (every namespace holds the kube-root-ca.crt ConfigMap)
    await waitFor('the quota controller to fill status', async () => (await used('q'))?.pods === '0' && (await used('q'))?.['count/configmaps'] === '1', 60_000);
    await k.ok(['run', 'p1', '-n', 'quota', '--image', 'busybox', '--restart', 'Never']);
    await k.ok(['run', 'p2', '-n', 'quota', '--image', 'busybox', '--restart', 'Never']);
    await waitFor('pods=2 in use', async () => (await used('q'))?.pods === '2', 60_000);
    const refused = await k.fails(['run', 'p3', '-n', 'quota', '--image', 'busybox', '--restart', 'Never']);
    assert.match(refused, /Error from server \(Forbidden\): pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2/);
    assert.match(await k.ok(['get', 'quota', '-n', 'quota']), /^NAME\s+REQUEST\s+LIMIT\s+AGE\nq\s+count\/configmaps: 1\/5, pods: 2\/2\s+\S+\n$/);
    assert.match(await k.ok(['describe', 'quota', 'q', '-n', 'quota']), /Resource\s+Used\s+Hard\n-+\s+-+\s+-+\ncount\/configmaps\s+1\s+5\npods\s+2\s+2\n/);

    await k.ok(['delete', 'pod', 'p1', '-n', 'quota', '--grace-period=0', '--force']);
    await waitFor('the deleted pod given back', async () => (await used('q'))?.pods === '1', 60_000);
    await k.ok(['create', 'quota', 'compute', '-n', 'quota', '--hard=limits.cpu=1']);
    await waitFor('the compute quota status', async () => (await used('compute'))?.['limits.cpu'] === '0', 60_000);
    const bare = await k.fails(['run', 'p4', '-n', 'quota', '--image', 'busybox', '--restart', 'Never']);
    assert.match(bare, /pods "p4" is forbidden: failed quota: compute: must specify limits\.cpu for: p4/);
  });

  it('ResourceQuota counts custom resources by count/<plural>.<group>; a deleted one is given back', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.quota.example.com' },
      spec: { group: 'quota.example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
    };
    await k.ok(['apply', '-f', '-'], { input: JSON.stringify(crd) });
    await k.ok(['wait', '--for=condition=Established', 'crd/widgets.quota.example.com', '--timeout=60s']);
    await k.ok(['create', 'namespace', 'crquota']);
    await k.ok(['create', 'quota', 'widgets', '-n', 'crquota', '--hard=count/widgets.quota.example.com=1']);
    const used = async () => (await k.json<{ status?: { used?: Record<string, string> } }>(['get', 'quota', 'widgets', '-n', 'crquota'])).status?.used?.['count/widgets.quota.example.com'];
    await waitFor('the quota controller to count widgets', async () => (await used()) === '0', 60_000);
    const widget = (name: string) => JSON.stringify({ apiVersion: 'quota.example.com/v1', kind: 'Widget', metadata: { name, namespace: 'crquota' } });
    await k.ok(['create', '-f', '-'], { input: widget('w1') });
    assert.match(await k.fails(['create', '-f', '-'], { input: widget('w2') }), /widgets\.quota\.example\.com "w2" is forbidden: exceeded quota: widgets, requested: count\/widgets\.quota\.example\.com=1, used: count\/widgets\.quota\.example\.com=1, limited: count\/widgets\.quota\.example\.com=1/);
    await k.ok(['delete', 'widget', 'w1', '-n', 'crquota']);
    // the controller watches the custom resource, so the delete is given back now, not at the 5-minute recount
    await waitFor('the deleted widget given back', async () => (await used()) === '0', 60_000);
    await k.ok(['create', '-f', '-'], { input: widget('w2') });
  });
});
