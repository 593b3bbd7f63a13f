import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { busyboxLayer, dockerArchive } from '../../src/kubelet/images/busybox-image.js';
import { firstMissing, missingCommand, skipUnless } from '../../src/testing/requirements.js';
import { missingContainerd, stopContainerdServer } from './support/containerd-node.js';
import { firstNodeName, kubectlFor, run, startServer, waitFor, type ServerProcess } from './harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const IMAGE = 'skiff.test/busybox:1';
const MAX_PIDS = 77;

const requirements = skipUnless(firstMissing(
  missingContainerd(),
  missingCommand('iptables', ['--version'], 'apt install iptables'),
));

interface PodJson {
  metadata: { name: string; uid: string };
  status: {
    phase: string; reason?: string; message?: string; podIP?: string; hostIP?: string; qosClass?: string;
    containerStatuses?: { name: string; ready: boolean; restartCount: number; state: { waiting?: { reason: string; message?: string } } }[];
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const CGROUP_V2 = existsSync('/sys/fs/cgroup/cgroup.controllers');

/** The pod's cgroup directory in one hierarchy (v1; v2 has one), wherever the host's cgroup version and driver put it. */
function podCgroup(qos: string, uid: string, hierarchy = 'pids'): string | undefined {
  const base = CGROUP_V2 ? '/sys/fs/cgroup' : `/sys/fs/cgroup/${hierarchy}`;
  const path = qos === 'guaranteed' ? ['kubepods'] : ['kubepods', qos];
  const escaped = uid.replaceAll('-', '_');
  const candidates = [
    join(base, ...path, `pod${uid}`),
    join(base, 'kubepods.slice', ...(qos === 'guaranteed' ? [] : [`kubepods-${qos}.slice`]), `${['kubepods', ...(qos === 'guaranteed' ? [] : [qos])].join('-')}-pod${escaped}.slice`),
  ];
  return candidates.find((c) => existsSync(c));
}

describe('security contexts, host namespaces and pod cgroups on containerd', requirements, () => {
  let server: ServerProcess;
  let kubectl: ReturnType<typeof kubectlFor>;
  let hostPort: number;

  before(async () => {
    server = await startServer({ args: ['--container-runtime', 'containerd', '--pod-max-pids', String(MAX_PIDS)], timeoutMs: 60_000 });
    kubectl = kubectlFor(server.kubeconfig);
    await firstNodeName(kubectl);
    const archive = join(server.dataDir, 'busybox.tar');
    writeFileSync(archive, dockerArchive(busyboxLayer(), { tags: [IMAGE] }));
    const imported = await run(process.execPath, [join(ROOT, 'bin/skiff.js'), 'images', 'import', '--data-dir', server.dataDir, archive]);
    assert.equal(imported.code, 0, imported.stderr);
    hostPort = await freePort();
    const c = (name: string, extra = '') => `  - { name: ${name}, image: ${IMAGE}, imagePullPolicy: Never, command: [sleep, "3600"]${extra} }`;
    await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata: { name: locked }
spec:
  terminationGracePeriodSeconds: 1
  securityContext:
    runAsUser: 1000
    runAsGroup: 3000
    supplementalGroups: [4000]
    fsGroup: 2000
    sysctls: [{ name: net.ipv4.ip_unprivileged_port_start, value: "99" }]
  volumes: [{ name: data, emptyDir: {} }]
  containers:
${c('app', ', securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false }, volumeMounts: [{ name: data, mountPath: /data }]')}
${c('nocaps', ', securityContext: { runAsUser: 0, capabilities: { drop: [ALL] } }')}
${c('rootcaps', ', securityContext: { runAsUser: 0, seccompProfile: { type: RuntimeDefault } }')}
---
apiVersion: v1
kind: Pod
metadata: { name: shared }
spec:
  terminationGracePeriodSeconds: 1
  shareProcessNamespace: true
  containers:
${c('a')}
  - { name: b, image: ${IMAGE}, imagePullPolicy: Never, command: [sh, -c, 'exec sleep 3601'], resources: { limits: { cpu: 100m, memory: 64Mi } } }
---
apiVersion: v1
kind: Pod
metadata: { name: capped }
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - { name: a, image: ${IMAGE}, imagePullPolicy: Never, command: [sleep, "3600"], resources: { limits: { cpu: 200m, memory: 32Mi } } }
  - { name: b, image: ${IMAGE}, imagePullPolicy: Never, command: [sleep, "3600"], resources: { limits: { cpu: 300m, memory: 16Mi } } }
---
apiVersion: v1
kind: Pod
metadata: { name: hostnet }
spec:
  terminationGracePeriodSeconds: 1
  hostNetwork: true
  containers:
${c('c')}
---
apiVersion: v1
kind: Pod
metadata: { name: hostport }
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: web
    image: ${IMAGE}
    imagePullPolicy: Never
    command: [sh, -c, 'echo hostport-ok > /tmp/index.html; exec httpd -f -p 8080 -h /tmp']
    ports: [{ containerPort: 8080, hostPort: ${hostPort} }]
` });
    for (const name of ['locked', 'shared', 'capped', 'hostnet', 'hostport']) {
      await kubectl.ok(['wait', '--for=condition=Ready', `pod/${name}`, '--timeout=90s']);
    }
  });

  after(() => stopContainerdServer(server));

  const exec = (pod: string, container: string, ...argv: string[]) => kubectl.exec(['exec', pod, '-c', container, '--', ...argv]);
  const out = async (pod: string, container: string, ...argv: string[]) => {
    const r = await exec(pod, container, ...argv);
    assert.equal(r.code, 0, `${argv.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };

  test('a pod sees only its own processes, and its sibling\'s with shareProcessNamespace; not the host\'s files', async () => {
    const comms = (ps: string) => [...new Set(ps.split('\n').slice(1).map((l) => l.trim().split(/\s+/)[1]))].sort();
    assert.deepEqual(comms(await out('locked', 'app', 'ps', '-o', 'pid,comm')), ['ps', 'sleep']);
    assert.match(await out('locked', 'app', 'ps', '-o', 'pid,comm'), /^\s*1\s+sleep$/m);
    const shared = await out('shared', 'a', 'ps', '-o', 'pid,args');
    // PID 1 is the sandbox's own process, which both containers share
    assert.doesNotMatch(shared, /^\s*1\s+sleep 360/m, shared);
    assert.match(shared, /sleep 3600/);
    assert.match(shared, /sleep 3601/);
    // the cluster CA key lives on the host, not in the container
    const key = join(server.dataDir, 'pki', 'ca.key');
    assert.ok(existsSync(key), 'the host has the CA key');
    const cat = await exec('locked', 'rootcaps', 'cat', key);
    assert.notEqual(cat.code, 0);
    assert.match(cat.stderr, /No such file or directory/);
  });

  test('runAsUser, runAsGroup, supplementalGroups and fsGroup; readOnlyRootFilesystem; the fsGroup owns the emptyDir', async () => {
    assert.equal(await out('locked', 'app', 'id', '-u'), '1000');
    assert.equal(await out('locked', 'app', 'id', '-g'), '3000');
    assert.deepEqual((await out('locked', 'app', 'id', '-G')).split(' ').sort(), ['2000', '3000', '4000']);
    const root = await exec('locked', 'app', 'touch', '/x');
    assert.notEqual(root.code, 0);
    assert.match(root.stderr, /Read-only file system/);
    await out('locked', 'app', 'touch', '/data/f');
    // setgid: what the pod writes there belongs to the fsGroup
    assert.equal(await out('locked', 'app', 'stat', '-c', '%g %a', '/data/f'), '2000 644');
    assert.match(await out('locked', 'app', 'stat', '-c', '%g %A', '/data'), /^2000 drwxrwsrwx$/);
    // allowPrivilegeEscalation: false is no_new_privs
    assert.match(await out('locked', 'app', 'cat', '/proc/self/status'), /^NoNewPrivs:\s+1$/m);
    assert.match(await out('locked', 'rootcaps', 'cat', '/proc/self/status'), /^NoNewPrivs:\s+0$/m);
  });

  test('dropping ALL capabilities makes root\'s chown fail; the default set allows it; seccomp and the masked /proc paths apply', async () => {
    await out('locked', 'rootcaps', 'touch', '/tmp/mine');
    await out('locked', 'rootcaps', 'chown', '123', '/tmp/mine');
    await out('locked', 'nocaps', 'touch', '/tmp/mine');
    const denied = await exec('locked', 'nocaps', 'chown', '123', '/tmp/mine');
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Operation not permitted/);
    assert.match(await out('locked', 'nocaps', 'cat', '/proc/self/status'), /^CapEff:\s+0000000000000000$/m);
    assert.match(await out('locked', 'rootcaps', 'cat', '/proc/self/status'), /^Seccomp:\s+2$/m);
    assert.match(await out('locked', 'nocaps', 'cat', '/proc/self/status'), /^Seccomp:\s+0$/m);
    // the default masked paths are covered (/proc/keys by /dev/null), /proc/sys is read-only
    assert.match(await out('locked', 'rootcaps', 'cat', '/proc/self/mountinfo'), / \/proc\/keys /);
    const sys = await exec('locked', 'rootcaps', 'sh', '-c', 'echo 1 > /proc/sys/kernel/domainname');
    assert.notEqual(sys.code, 0);
  });

  test('a safe sysctl is applied in the pod; an unsafe one is refused by the kubelet with SysctlForbidden', async () => {
    assert.equal(await out('locked', 'app', 'cat', '/proc/sys/net/ipv4/ip_unprivileged_port_start'), '99');
    await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata: { name: unsafe }
spec:
  securityContext: { sysctls: [{ name: kernel.msgmax, value: "65536" }] }
  containers: [{ name: c, image: ${IMAGE}, imagePullPolicy: Never, command: [sleep, "3600"] }]
` });
    const p = await waitFor('unsafe rejected', async () => {
      const pod = await kubectl.json<PodJson>(['get', 'pod', 'unsafe']);
      return pod.status.phase === 'Failed' ? pod : undefined;
    }, 60_000);
    assert.equal(p.status.reason, 'SysctlForbidden');
    assert.equal(p.status.message, 'Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted');
    const events = await kubectl.json<{ items: { reason: string; type: string }[] }>(['get', 'events', '--field-selector', 'involvedObject.name=unsafe']);
    assert.ok(events.items.some((e) => e.reason === 'SysctlForbidden' && e.type === 'Warning'), JSON.stringify(events.items));
  });

  test('a hostNetwork pod has the node\'s interfaces and IP; a hostPort reaches the pod from the host', async () => {
    const hostnet = await kubectl.json<PodJson>(['get', 'pod', 'hostnet']);
    assert.equal(hostnet.status.podIP, hostnet.status.hostIP);
    assert.match(await out('hostnet', 'c', 'cat', '/proc/net/dev'), /skiff0:/);
    assert.doesNotMatch(await out('locked', 'app', 'cat', '/proc/net/dev'), /skiff0:/);
    const pod = await kubectl.json<PodJson>(['get', 'pod', 'hostport']);
    for (const host of ['127.0.0.1', pod.status.hostIP!]) {
      const body = await waitFor(`hostPort ${hostPort} on ${host}`, async () => {
        try {
          const res = await fetch(`http://${host}:${hostPort}/index.html`, { signal: AbortSignal.timeout(2000) });
          return res.ok ? res.text() : undefined;
        } catch {
          return undefined;
        }
      }, 30_000);
      assert.equal(body.trim(), 'hostport-ok');
    }
  });

  test('pods live in cgroups under kubepods by QoS class, with the pids limit', async () => {
    const locked = await kubectl.json<PodJson>(['get', 'pod', 'locked']);
    const shared = await kubectl.json<PodJson>(['get', 'pod', 'shared']);
    assert.equal(locked.status.qosClass, 'BestEffort');
    assert.equal(shared.status.qosClass, 'Burstable');
    for (const [p, qos] of [[locked, 'besteffort'], [shared, 'burstable']] as const) {
      const dir = podCgroup(qos, p.metadata.uid);
      assert.ok(dir, `a pod cgroup for ${p.metadata.name}`);
      assert.equal(readFileSync(join(dir, 'pids.max'), 'utf8').trim(), String(MAX_PIDS));
    }
  });

  test('the pod cgroup is capped at the sum of its containers\' limits (Guaranteed); a Burstable pod with an unlimited container has no pod memory cap', async () => {
    const capped = await kubectl.json<PodJson>(['get', 'pod', 'capped']);
    const shared = await kubectl.json<PodJson>(['get', 'pod', 'shared']);
    assert.equal(capped.status.qosClass, 'Guaranteed');
    const mem = podCgroup('guaranteed', capped.metadata.uid, 'memory');
    const cpu = podCgroup('guaranteed', capped.metadata.uid, 'cpu');
    assert.ok(mem && cpu, 'the Guaranteed pod has a cgroup under kubepods');
    const burstable = podCgroup('burstable', shared.metadata.uid, 'memory');
    assert.ok(burstable, 'the Burstable pod has a cgroup under kubepods/burstable');
    const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8').trim();
    if (CGROUP_V2) {
      assert.equal(read(mem, 'memory.max'), String(48 * 1024 * 1024));
      assert.equal(read(cpu, 'cpu.max'), '50000 100000');
      assert.equal(read(burstable, 'memory.max'), 'max');
    } else {
      assert.equal(read(mem, 'memory.limit_in_bytes'), String(48 * 1024 * 1024));
      assert.equal(read(cpu, 'cpu.cfs_quota_us'), '50000');
      assert.equal(read(cpu, 'cpu.cfs_period_us'), '100000');
      // unlimited: the kernel shows its page-rounded maximum
      assert.ok(Number(read(burstable, 'memory.limit_in_bytes')) > 2 ** 60);
    }
    // the containers keep their own caps below the pod's
    assert.equal(await out('capped', 'b', 'cat', CGROUP_V2 ? '/sys/fs/cgroup/memory.max' : '/sys/fs/cgroup/memory/memory.limit_in_bytes'), String(16 * 1024 * 1024));
  });

  test('an invalid security context shows upstream\'s waiting reason; the kubelet keeps serving other pods', async () => {
    await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata: { name: badseccomp }
spec:
  containers:
  - { name: c, image: ${IMAGE}, imagePullPolicy: Never, command: [sleep, "3600"], securityContext: { seccompProfile: { type: Localhost, localhostProfile: missing.json } } }
---
apiVersion: v1
kind: Pod
metadata: { name: neighbour }
spec:
  containers: [{ name: c, image: ${IMAGE}, imagePullPolicy: Never, command: [sleep, "3600"] }]
---
apiVersion: v1
kind: Pod
metadata: { name: badcap }
spec:
  containers: [{ name: c, image: ${IMAGE}, imagePullPolicy: Never, command: [sleep, "3600"], securityContext: { capabilities: { add: [NOT_A_CAPABILITY] } } }]
` });
    const waiting = await waitFor('badseccomp waiting', async () => {
      const p = await kubectl.json<PodJson>(['get', 'pod', 'badseccomp']);
      const w = p.status.containerStatuses?.[0]?.state.waiting;
      return w?.reason === 'CreateContainerError' ? w : undefined;
    }, 60_000);
    assert.match(waiting.message ?? '', /seccomp/);
    assert.ok(waiting.message?.includes(join(server.dataDir, 'kubelet', 'seccomp', 'missing.json')), waiting.message);
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/neighbour', '--timeout=60s']);
    // as with upstream on runc: a capability the kernel does not know is skipped, not an error
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/badcap', '--timeout=60s']);
  });
});
