import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { busyboxLayer, dockerArchive } from '../../src/kubelet/images/busybox-image.js';
import { CriRuntime } from '../../src/kubelet/runtime/cri/cri-runtime.js';
import { firstMissing, skipUnless } from '../../src/testing/requirements.js';
import { missingContainerd, stopContainerdServer } from './support/containerd-node.js';
import { firstNodeName, kubectlFor, run, startServer, waitFor, type ServerProcess } from './harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const IMAGE = 'skiff.test/busybox:1';

const requirements = skipUnless(firstMissing(
  missingContainerd(),
));

interface PodJson {
  metadata: { name: string };
  status: { phase: string; podIP?: string; podIPs?: { ip: string }[]; containerStatuses?: { containerID?: string; restartCount: number; ready: boolean }[] };
}

describe('real containers through containerd', requirements, () => {
  let server: ServerProcess;
  let kubectl: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer({ args: ['--container-runtime', 'containerd'], timeoutMs: 60_000 });
    kubectl = kubectlFor(server.kubeconfig);
    await firstNodeName(kubectl);
    // the test image: the host's static busybox in one layer, no registry involved
    const archive = join(server.dataDir, 'busybox.tar');
    writeFileSync(archive, dockerArchive(busyboxLayer(), { tags: [IMAGE] }));
    const imported = await run(process.execPath, [join(ROOT, 'bin/skiff.js'), 'images', 'import', '--data-dir', server.dataDir, archive]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /imported skiff\.test\/busybox:1/);
  });

  after(() => stopContainerdServer(server));

  /** Where this node's containerd pins its pods' network namespaces (its own, not the host's /var/run/netns). */
  const netnsDir = () => join(server.dataDir, 'kubelet', 'containerd', 'state', 'io.containerd.grpc.v1.cri', 'netns');
  /** A pinned namespace whose sandbox containerd lost (made here: housekeeping judges only those over a minute old). */
  let leakedNetns = '';

  test('the node reports containerd and the imported images', async () => {
    const node = (await kubectl.json<{ items: { status: { nodeInfo: { containerRuntimeVersion: string } }; spec: { podCIDR?: string } }[] }>(['get', 'nodes'])).items[0]!;
    assert.match(node.status.nodeInfo.containerRuntimeVersion, /^containerd:\/\//);
    // assigned by the controller manager's node IPAM from the cluster CIDR; the kubelet waited for it
    assert.match(node.spec.podCIDR ?? '', /^10\.42\.\d+\.0\/24$/);
    const ls = await run(process.execPath, [join(ROOT, 'bin/skiff.js'), 'images', 'ls', '--data-dir', server.dataDir]);
    assert.equal(ls.code, 0, ls.stderr);
    assert.match(ls.stdout, /skiff\.test\/busybox:1/);
    assert.match(ls.stdout, /skiff\.local\/pause:1/);
  });

  test('a deployment of the image reaches 3/3 Running, each pod on its own IP the host reaches', async () => {
    await kubectl.ok(['create', 'deployment', 'web', `--image=${IMAGE}`, '--replicas=3', '--', 'sh', '-c', 'hostname > /tmp/index.html; echo started; exec httpd -f -p 8080 -h /tmp']);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    const pods = await waitFor('3 running pods with IPs', async () => {
      const list = await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web']);
      const running = list.items.filter((p) => p.status.phase === 'Running' && p.status.podIP);
      return running.length === 3 ? running : undefined;
    }, 60_000);
    const ips = pods.map((p) => p.status.podIP!);
    assert.equal(new Set(ips).size, 3, `pod IPs are distinct: ${ips.join(' ')}`);
    for (const p of pods) {
      assert.match(p.status.podIP!, /^10\.42\.\d+\.\d+$/);
      assert.deepEqual(p.status.podIPs, [{ ip: p.status.podIP }]);
      assert.match(p.status.containerStatuses![0]!.containerID!, /^containerd:\/\//);
      // the host reaches the pod on its own IP, and the pod answers with its own hostname
      const body = await waitFor(`pod ${p.metadata.name} answers`, async () => {
        const res = await fetch(`http://${p.status.podIP}:8080/index.html`);
        return res.ok ? res.text() : undefined;
      }, 20_000);
      assert.equal(body.trim(), p.metadata.name);
      assert.match(await kubectl.ok(['logs', p.metadata.name]), /^started$/m);
    }
  });

  test('a container without a command runs the image\'s own entrypoint and cmd', async () => {
    const archive = join(server.dataDir, 'greeter.tar');
    writeFileSync(archive, dockerArchive(busyboxLayer(), { tags: ['skiff.test/greeter:1'], entrypoint: ['/bin/echo'], cmd: ['hello', 'from', 'cmd'] }));
    const imported = await run(process.execPath, [join(ROOT, 'bin/skiff.js'), 'images', 'import', '--data-dir', server.dataDir, archive]);
    assert.equal(imported.code, 0, imported.stderr);
    await kubectl.ok(['run', 'greeter', '--image=skiff.test/greeter:1', '--image-pull-policy=Never', '--restart=Never']);
    await kubectl.ok(['run', 'greeter-args', '--image=skiff.test/greeter:1', '--image-pull-policy=Never', '--restart=Never', '--', 'args', 'replace', 'cmd']);
    await waitFor('both pods succeed', async () => {
      const list = await kubectl.json<{ items: PodJson[] }>(['get', 'pods', 'greeter', 'greeter-args']);
      return list.items.every((p) => p.status.phase === 'Succeeded');
    }, 60_000);
    assert.equal((await kubectl.ok(['logs', 'greeter'])).trim(), 'hello from cmd');
    assert.equal((await kubectl.ok(['logs', 'greeter-args'])).trim(), 'args replace cmd');
  });

  test('exec runs inside the pod: ps shows only its own processes, id -u is the runAsUser', async () => {
    const pod = (await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web'])).items[0]!;
    const ps = await kubectl.ok(['exec', pod.metadata.name, '--', 'ps', '-o', 'pid,comm']);
    const commands = ps.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/)[1]);
    assert.deepEqual([...new Set(commands)].sort(), ['httpd', 'ps'], ps);
    assert.match(ps, /^\s*1\s+httpd$/m);
    await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata:
  name: runas
spec:
  securityContext:
    runAsUser: 1234
  containers:
  - name: c
    image: ${IMAGE}
    command: ['sleep', '3600']
` });
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/runas', '--timeout=60s']);
    assert.equal((await kubectl.ok(['exec', 'runas', '--', 'id', '-u'])).trim(), '1234');
    const failed = await kubectl.exec(['exec', 'runas', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    assert.equal(failed.code, 3);
    assert.equal(failed.stdout.trim(), 'out');
    assert.match(failed.stderr, /^err$/m);
  });

  test('runAsNonRoot against a root image fails with upstream\'s message; limits reach the cgroup; a container over its memory limit is OOMKilled and restarted, neighbours keep running', async () => {
    await kubectl.ok(['apply', '-f', '-'], { input: `apiVersion: v1
kind: Pod
metadata: { name: nonroot }
spec:
  securityContext: { runAsNonRoot: true }
  containers:
  - { name: c, image: ${IMAGE}, command: [sleep, "3600"] }
---
apiVersion: v1
kind: Pod
metadata: { name: limited }
spec:
  containers:
  - { name: c, image: ${IMAGE}, command: [sleep, "3600"], resources: { limits: { memory: 32Mi, cpu: 500m } } }
---
apiVersion: v1
kind: Pod
metadata: { name: hog }
spec:
  containers:
  - { name: c, image: ${IMAGE}, command: [sh, -c, 'echo hogging; tail /dev/zero'], resources: { limits: { memory: 16Mi } } }
` });
    const uid = (await kubectl.json<{ metadata: { uid: string } }>(['get', 'pod', 'nonroot'])).metadata.uid;
    const waiting = await waitFor('nonroot refused', async () => {
      const p = await kubectl.json<{ status: { containerStatuses?: { state: { waiting?: { reason: string; message?: string } } }[] } }>(['get', 'pod', 'nonroot']);
      const w = p.status.containerStatuses?.[0]?.state.waiting;
      return w?.reason === 'CreateContainerConfigError' ? w : undefined;
    }, 60_000);
    assert.equal(waiting.message, `container has runAsNonRoot and image will run as root (pod: "nonroot_default(${uid})", container: c)`);

    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/limited', '--timeout=60s']);
    const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
    const read = async (file: string) => (await kubectl.ok(['exec', 'limited', '--', 'cat', file])).trim();
    if (v2) {
      assert.equal(await read('/sys/fs/cgroup/memory.max'), String(32 * 1024 * 1024));
      assert.equal(await read('/sys/fs/cgroup/cpu.max'), '50000 100000');
    } else {
      assert.equal(await read('/sys/fs/cgroup/memory/memory.limit_in_bytes'), String(32 * 1024 * 1024));
      assert.equal(await read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'), '50000');
      assert.equal(await read('/sys/fs/cgroup/cpu/cpu.shares'), '512');
    }

    interface Status { restartCount: number; state: { waiting?: { reason: string } }; lastState: { terminated?: { reason: string; exitCode: number } } }
    const oom = await waitFor('hog OOMKilled and restarted', async () => {
      const p = await kubectl.json<{ status: { containerStatuses?: Status[] } }>(['get', 'pod', 'hog']);
      const s = p.status.containerStatuses?.[0];
      return s && s.restartCount >= 1 && s.lastState.terminated?.reason === 'OOMKilled' ? s : undefined;
    }, 90_000);
    assert.equal(oom.lastState.terminated?.exitCode, 137);
    await waitFor('hog in CrashLoopBackOff', async () => {
      const p = await kubectl.json<{ status: { containerStatuses?: Status[] } }>(['get', 'pod', 'hog']);
      return p.status.containerStatuses?.[0]?.state.waiting?.reason === 'CrashLoopBackOff';
    }, 90_000);
    const neighbours = await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web']);
    for (const p of [...neighbours.items, await kubectl.json<PodJson>(['get', 'pod', 'limited'])]) {
      assert.equal(p.status.phase, 'Running', p.metadata.name);
      assert.equal(p.status.containerStatuses![0]!.restartCount, 0, p.metadata.name);
    }
    const events = await kubectl.json<{ items: { reason: string; message: string }[] }>(['get', 'events', '--field-selector', 'involvedObject.name=hog']);
    assert.ok(events.items.some((e) => e.reason === 'BackOff' && e.message.startsWith('Back-off restarting failed container c in pod hog_default')), JSON.stringify(events.items));
    await kubectl.ok(['delete', 'pod', 'hog', 'nonroot', 'limited', '--grace-period=1']);
  });

  test('pods/proxy reaches the pod on its own IP; kubectl debug adds an ephemeral container that runs in the pod', async () => {
    const pod = (await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web'])).items[0]!;
    const name = pod.metadata.name;
    assert.equal((await kubectl.ok(['get', '--raw', `/api/v1/namespaces/default/pods/${name}:8080/proxy/index.html`])).trim(), name);
    await kubectl.ok(['debug', name, `--image=${IMAGE}`, '--image-pull-policy=Never', '-c', 'dbg', '--', 'sh', '-c', 'echo debug-$(hostname)']);
    await waitFor('the ephemeral container to finish', async () => {
      const p = await kubectl.json<{ status: { ephemeralContainerStatuses?: { name: string; state: { terminated?: { exitCode: number } } }[] } }>(['get', 'pod', name]);
      return p.status.ephemeralContainerStatuses?.find((c) => c.name === 'dbg')?.state.terminated;
    }, 60_000);
    assert.equal((await kubectl.ok(['logs', name, '-c', 'dbg'])).trim(), `debug-${name}`);
  });

  const kubectlNode = async () => (await kubectl.json<{ items: { status: { daemonEndpoints: { kubeletEndpoint: { Port: number } } } }[] }>(['get', 'nodes'])).items[0]!;

  /** The web pods' container IDs and restart counts, once each answers on its own IP. */
  async function webPods(): Promise<Map<string, string>> {
    const list = await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web']);
    const out = new Map<string, string>();
    for (const p of list.items) {
      const s = p.status.containerStatuses?.[0];
      assert.equal(p.status.phase, 'Running', p.metadata.name);
      assert.equal(s?.restartCount, 0, `${p.metadata.name} was not restarted`);
      const res = await fetch(`http://${p.status.podIP}:8080/index.html`);
      assert.equal((await res.text()).trim(), p.metadata.name);
      out.set(p.metadata.name, s!.containerID!);
    }
    assert.equal(out.size, 3);
    return out;
  }

  test('containerd killed with SIGKILL is restarted by the kubelet; the pods keep running and new pods start', async () => {
    const before = await webPods();
    // each pod's network namespace is pinned under the node's own containerd state dir
    assert.ok(readdirSync(netnsDir()).length >= 3, `pods' namespaces in ${netnsDir()}`);
    leakedNetns = join(netnsDir(), 'cni-lost-by-a-killed-containerd');
    writeFileSync(leakedNetns, '');
    execFileSync('unshare', [`--net=${leakedNetns}`, 'true']);
    const pidFile = join(server.dataDir, 'kubelet', 'containerd', 'containerd.pid');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    process.kill(pid, 'SIGKILL');
    await waitFor('a new containerd', () => {
      const next = Number(readFileSync(pidFile, 'utf8'));
      return next !== pid && existsSync(`/proc/${next}`);
    }, 30_000);
    await kubectl.ok(['run', 'after-crash', `--image=${IMAGE}`, '--', 'sleep', '3600']);
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/after-crash', '--timeout=60s']);
    assert.deepEqual(await webPods(), before);
  });

  test('the kubelet killed with SIGKILL and restarted adopts its containers: no restarts, same container IDs', async () => {
    const before = await webPods();
    const ips = (await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web'])).items.map((p) => p.status.podIP!);
    const dataDir = server.dataDir;
    const port = (await kubectlNode()).status.daemonEndpoints.kubeletEndpoint.Port;
    await server.stop('SIGKILL');
    // the pods keep serving while no kubelet runs
    for (const ip of ips) assert.equal((await fetch(`http://${ip}:8080/index.html`)).status, 200);
    server = await startServer({ dataDir, args: ['--container-runtime', 'containerd'], timeoutMs: 60_000 });
    kubectl = kubectlFor(server.kubeconfig);
    // the new kubelet has taken over every running pod (its log says so per pod) and registered its new server port
    await waitFor('the restarted kubelet adopts the pods', () => (server.logs().match(/adopted running pod/g)?.length ?? 0) >= 4, 60_000);
    await waitFor('the node shows the new kubelet port', async () => (await kubectlNode()).status.daemonEndpoints.kubeletEndpoint.Port !== port, 30_000);
    assert.deepEqual(await webPods(), before);
    assert.equal((await kubectl.ok(['exec', 'after-crash', '--', 'echo', 'adopted'])).trim(), 'adopted');
  });

  test('after the restart, housekeeping removes a sandbox no pod owns with its IP and network namespace, a leaked IP and a leaked namespace', async () => {
    // what a pod deleted while the kubelet was down leaves behind: a running sandbox with a network, and an address
    // whose sandbox containerd never recorded (killed mid-RunPodSandbox)
    const ipam = join(server.dataDir, 'kubelet', 'cni', 'ipam', 'skiff-pods');
    const ips = (await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web'])).items.map((p) => p.status.podIP!);
    // host-local keeps one file per address there (so the checks below look in the right place)
    for (const ip of ips) assert.ok(existsSync(join(ipam, ip)), `${ip} is allocated in ${ipam}`);
    const cri = await CriRuntime.connect(`unix://${join(server.dataDir, 'kubelet', 'containerd', 'containerd.sock')}`);
    try {
      const podsNetns = await cri.heldNetnsPaths();
      const orphan = await cri.runPodSandbox({ uid: 'no-such-pod', name: 'orphan', namespace: 'default', hostname: 'orphan', logDirectory: join(server.dataDir, 'orphan-logs') });
      assert.match(orphan.ip ?? '', /^10\.42\.\d+\.\d+$/);
      const orphanNetns = [...(await cri.heldNetnsPaths())].find((p) => !podsNetns.has(p));
      assert.ok(orphanNetns?.startsWith(netnsDir()), `the orphan's namespace ${orphanNetns} is under ${netnsDir()}`);
      const leaked = join(ipam, `${ips[0]!.split('.').slice(0, 3).join('.')}.250`);
      writeFileSync(leaked, 'sandbox-containerd-never-recorded\r\neth0');
      const hourAgo = (Date.now() - 3600_000) / 1000;
      utimesSync(leaked, hourAgo, hourAgo);
      await waitFor('the orphaned sandbox removed, both addresses released and both namespaces gone', async () => {
        const left = (await cri.listPodSandboxes()).some((s) => s.id === orphan.id);
        return !left && !existsSync(join(ipam, orphan.ip!)) && !existsSync(leaked) && !existsSync(orphanNetns!) && !existsSync(leakedNetns);
      }, 90_000);
      // the pods' own namespaces stay theirs
      for (const p of podsNetns) assert.ok(existsSync(p), `${p} is still there`);
    } finally {
      await cri.close();
    }
    // the pods' own addresses stay theirs
    for (const ip of ips) assert.ok(existsSync(join(ipam, ip)), `${ip} is still allocated`);
  });
});
