import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { busyboxLayer, dockerArchive } from '../../src/kubelet/images/busybox-image.js';
import { netnsNodeRequirements, netnsWrap } from './support/netns-node.js';
import { firstNodeName, kubectlFor, removeDir, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

const IMAGE = 'skiff.test/busybox:1';
const HOST_IP = '192.168.252.1';

const requirements = netnsNodeRequirements;

/**
 * The node (API server, DNS, kubelet, containerd, kube-proxy's iptables
 * rules) runs in a network namespace of its own with one address besides
 * loopback, so DNS traffic never leaves it: upstream forwarding has nowhere
 * to go (names outside the cluster fail), and the host is untouched.
 */
const NETNS_WRAP = netnsWrap(HOST_IP);

const STOP_ON_TERM = 'trap "exit 0" TERM;';

interface PodJson { metadata: { name: string }; status: { phase: string; podIP?: string } }

/** The addresses busybox's nslookup printed for the name asked (after the server's own `Address:` line). */
function addresses(out: string): string[] {
  const answers = out.split(/^Name:/m).slice(1).join('\n');
  return [...answers.matchAll(/^Address:\s*(\S+)$/gm)].map((m) => m[1]).sort();
}

describe('cluster DNS from pods in their network namespaces', requirements, () => {
  let server: ServerProcess;
  let kubectl: ReturnType<typeof kubectlFor>;

  before(async () => {
    server = await startServer({ args: ['--container-runtime', 'containerd', '--proxy-mode', 'iptables'], wrap: NETNS_WRAP, timeoutMs: 60_000 });
    kubectl = kubectlFor(server.kubeconfig, undefined, ['nsenter', `--net=/proc/${server.proc.pid}/ns/net`, '--']);
    await firstNodeName(kubectl);
    const archive = join(server.dataDir, 'busybox.tar');
    writeFileSync(archive, dockerArchive(busyboxLayer(), { tags: [IMAGE] }));
    const imported = await run(process.execPath, [join(ROOT, 'bin/skiff.js'), 'images', 'import', '--data-dir', server.dataDir, archive]);
    assert.equal(imported.code, 0, imported.stderr);
  });

  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  /** Runs a shell script in a pod; its exit code is the caller's to judge. */
  const inPod = (pod: string, script: string, namespace = 'default') => kubectl.exec(['exec', '-n', namespace, pod, '--', 'sh', '-c', script]);

  test('kube-dns is at the tenth service address; a pod resolves Services by short and full name and reaches one by name', async () => {
    const dns = await waitFor('the kube-dns Service with this node\'s DNS endpoint', async () => {
      const svc = await kubectl.json<{ spec: { clusterIP: string } }>(['get', 'service', '-n', 'kube-system', 'kube-dns']).catch(() => undefined);
      const slices = await kubectl.json<{ items: { endpoints?: { addresses: string[] }[] }[] }>(['get', 'endpointslices', '-n', 'kube-system', '-l', 'kubernetes.io/service-name=kube-dns']);
      return svc && slices.items.some((s) => s.endpoints?.some((e) => e.addresses.includes(HOST_IP))) ? svc : undefined;
    }, 60_000);
    assert.equal(dns.spec.clusterIP, '10.96.0.10');

    await kubectl.ok(['create', 'deployment', 'web', `--image=${IMAGE}`, '--replicas=2', '--', 'sh', '-c', `hostname > /tmp/index.html; ${STOP_ON_TERM} httpd -f -p 8080 -h /tmp & wait`]);
    await kubectl.ok(['expose', 'deployment', 'web', '--port=80', '--target-port=8080']);
    await kubectl.ok(['run', 'client', `--image=${IMAGE}`, '--restart=Never', '--', 'sh', '-c', `${STOP_ON_TERM} sleep 3600 & wait`]);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    const pods = await waitFor('2 web pods running', async () => {
      const list = await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web']);
      const running = list.items.filter((p) => p.status.phase === 'Running' && p.status.podIP);
      return running.length === 2 ? running : undefined;
    }, 90_000);
    await waitFor('the client pod running', async () => (await kubectl.json<PodJson>(['get', 'pod', 'client'])).status.phase === 'Running', 90_000);
    const { clusterIP } = (await kubectl.json<{ spec: { clusterIP: string } }>(['get', 'service', 'web'])).spec;

    // the kubelet wrote the pod's resolv.conf for ClusterFirst
    const resolv = await kubectl.ok(['exec', 'client', '--', 'cat', '/etc/resolv.conf']);
    assert.match(resolv, /^nameserver 10\.96\.0\.10$/m);
    assert.match(resolv, /^search default\.svc\.cluster\.local svc\.cluster\.local cluster\.local\b/m);
    assert.match(resolv, /^options ndots:5$/m);

    // busybox's nslookup walks the whole search path and exits 1 when any step misses (and searches only dotless names): read its answers
    for (const name of ['web', 'web.default.svc.cluster.local']) {
      const out = await waitFor(`${name} resolving from the pod`, async () => {
        const r = await inPod('client', `nslookup ${name} 2>&1`);
        return addresses(r.stdout).includes(clusterIP) ? r.stdout : undefined;
      }, 60_000, 500);
      assert.deepEqual(addresses(out), [clusterIP], out);
    }
    const missing = await inPod('client', 'nslookup nope.default.svc.cluster.local 2>&1');
    assert.match(missing.stdout, /NXDOMAIN/);

    // by name through the cluster IP to a pod
    const names = pods.map((p) => p.metadata.name);
    const body = await waitFor('web answering by name', async () => {
      const r = await inPod('client', `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc -w 3 web 80`);
      return r.code === 0 ? r.stdout.split('\r\n\r\n')[1]?.trim() : undefined;
    }, 30_000, 500);
    assert.ok(names.includes(body), `${body} is one of ${names.join(', ')}`);
  });

  test('a headless Service resolves to each ready pod, and a StatefulSet pod to web-0.web', async () => {
    await kubectl.ok(['create', 'namespace', 'sts']);
    await kubectl.ok(['apply', '-n', 'sts', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'v1', kind: 'List', items: [
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ name: 'http', port: 8080 }] } },
        {
          apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' },
          spec: {
            serviceName: 'web', replicas: 2, selector: { matchLabels: { app: 'db' } },
            template: { metadata: { labels: { app: 'db' } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: IMAGE, command: ['sh', '-c', `${STOP_ON_TERM} sleep 3600 & wait`] }] } },
          },
        },
      ],
    }) });
    const pods = await waitFor('web-0 and web-1 running', async () => {
      const list = await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-n', 'sts', '-l', 'app=db']);
      const running = list.items.filter((p) => p.status.phase === 'Running' && p.status.podIP);
      return running.length === 2 ? running : undefined;
    }, 120_000);
    const ipOf = (name: string) => pods.find((p) => p.metadata.name === name)!.status.podIP!;

    const all = await waitFor('the headless name resolving to both pods', async () => {
      const r = await inPod('web-1', 'nslookup web 2>&1', 'sts');
      const got = addresses(r.stdout);
      return got.length === 2 ? got : undefined;
    }, 60_000, 500);
    assert.deepEqual(all, [ipOf('web-0'), ipOf('web-1')].sort());

    const peer = await waitFor('web-0.web.sts.svc.cluster.local resolving from web-1', async () => {
      const r = await inPod('web-1', 'nslookup web-0.web.sts.svc.cluster.local 2>&1', 'sts');
      return addresses(r.stdout).length > 0 ? addresses(r.stdout) : undefined;
    }, 60_000, 500);
    assert.deepEqual(peer, [ipOf('web-0')]);
    // the short `web-0.web` through the C library's resolver and the pod's search path: nc names the address it could not connect to
    const short = await inPod('web-1', 'nc -w 2 web-0.web 9 2>&1', 'sts');
    assert.match(short.stdout, new RegExp(`\\(${ipOf('web-0').replace(/\./g, '\\.')}\\)`), short.stdout);

    // scaled to one: web-1 leaves the headless answer
    await kubectl.ok(['scale', '-n', 'sts', 'statefulset/web', '--replicas=1']);
    await waitFor('only web-0 in the headless answer', async () => {
      const r = await inPod('web-0', 'nslookup web.sts.svc.cluster.local 2>&1', 'sts');
      return addresses(r.stdout).join() === ipOf('web-0');
    }, 60_000, 500);
  });
});
