import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { busyboxLayer, dockerArchive } from '../../src/kubelet/images/busybox-image.js';
import { netnsNodeRequirements, netnsWrap } from './support/netns-node.js';
import { firstNodeName, kubectlFor, removeDir, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

const IMAGE = 'skiff.test/busybox:1';
/** The "host" network namespace's own address (on a veth pair inside it), and its default route. */
const HOST_IP = '192.168.251.1';

const requirements = netnsNodeRequirements;

/**
 * The whole node (API server, kubelet, containerd, pods' bridge, kube-proxy's
 * iptables rules) runs in a network namespace of its own, so the test neither
 * touches the machine's iptables nor meets other clusters' pod IPs.
 */
const NETNS_WRAP = netnsWrap(HOST_IP);

/** PID 1 in a container has no default SIGTERM action: exit on it, so pods stop at once rather than after the grace period. */
const STOP_ON_TERM = 'trap "exit 0" TERM;';

interface PodJson { metadata: { name: string }; status: { phase: string; podIP?: string } }

describe('kube-proxy iptables mode with pods in their network namespaces', requirements, () => {
  let server: ServerProcess;
  let kubectl: ReturnType<typeof kubectlFor>;
  /** Runs a command in the node's network namespace ("on the host"). */
  const onHost = (cmd: string, args: string[]) => run('nsenter', [`--net=/proc/${server.proc.pid}/ns/net`, '--', cmd, ...args], { timeoutMs: 15_000 });

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

  test('a pod reaches a ClusterIP Service spread over its pods, the host reaches the NodePort, scaled-away pods leave', async () => {
    await kubectl.ok(['create', 'deployment', 'web', `--image=${IMAGE}`, '--replicas=2', '--', 'sh', '-c', `hostname > /tmp/index.html; ${STOP_ON_TERM} httpd -f -p 8080 -h /tmp & wait`]);
    await kubectl.ok(['expose', 'deployment', 'web', '--port=80', '--target-port=8080', '--type=NodePort']);
    await kubectl.ok(['run', 'client', `--image=${IMAGE}`, '--restart=Never', '--', 'sh', '-c', `${STOP_ON_TERM} sleep 3600 & wait`]);
    await kubectl.ok(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    const pods = await waitFor('2 web pods running with IPs', async () => {
      const list = await kubectl.json<{ items: PodJson[] }>(['get', 'pods', '-l', 'app=web']);
      const running = list.items.filter((p) => p.status.phase === 'Running' && p.status.podIP);
      return running.length === 2 ? running : undefined;
    }, 90_000);
    const names = pods.map((p) => p.metadata.name).sort();
    await waitFor('the client pod running', async () => (await kubectl.json<PodJson>(['get', 'pod', 'client'])).status.phase === 'Running', 90_000);

    const svc = await kubectl.json<{ spec: { clusterIP: string; ports: { nodePort: number }[] } }>(['get', 'service', 'web']);
    const { clusterIP } = svc.spec;
    const nodePort = svc.spec.ports[0].nodePort;
    // (the static busybox's wget crashes in getaddrinfo, even for an IP literal; nc does not resolve)
    const fromPod = async (ip: string): Promise<string> => {
      const out = await kubectl.ok(['exec', 'client', '--', 'sh', '-c', `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${ip} 80`]);
      return out.split('\r\n\r\n')[1]?.trim() ?? '';
    };

    // the pod in its own netns → cluster IP → DNAT to a pod on the bridge; random choice reaches both
    const seen = await waitFor('both pods answering through the cluster IP', async () => {
      const got = new Set<string>();
      for (let i = 0; i < 20 && got.size < 2; i++) got.add(await fromPod(clusterIP));
      return got.size === 2 ? got : undefined;
    }, 60_000, 500);
    assert.deepEqual([...seen].sort(), names);

    // the host → node port, on its own address and on 127.0.0.1 (route_localnet, as upstream)
    for (const host of [HOST_IP, '127.0.0.1']) {
      let last = '';
      const body = await waitFor(`the node port on ${host}`, async () => {
        const r = await onHost('sh', ['-c', `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | busybox nc -w 3 ${host} ${nodePort}`]);
        last = r.stderr;
        return r.code === 0 ? r.stdout.split('\r\n\r\n')[1]?.trim() : undefined;
      }, 30_000, 500).catch(async (err: Error) => {
        throw new Error(`${err.message}: ${last}\n${(await onHost('iptables-save', [])).stdout}`);
      });
      assert.ok(names.includes(body), `${body} is one of ${names.join(', ')}`);
    }

    // upstream's rules are in place
    const saved = await onHost('iptables-save', ['-t', 'nat']);
    assert.match(saved.stdout, /-A KUBE-SERVICES .*"default\/web cluster IP".* -j KUBE-SVC-[A-Z2-7]{16}/);
    assert.match(saved.stdout, /-A KUBE-SVC-[A-Z2-7]{16} .*-m statistic --mode random --probability 0\.50000000000? -j KUBE-SEP-/);
    assert.match(saved.stdout, new RegExp(`-A KUBE-NODEPORTS .*--dport ${nodePort} -j KUBE-EXT-`));
    assert.match(saved.stdout, /-A KUBE-POSTROUTING .*-j MASQUERADE/);

    // scale to one: the other pod leaves the endpoints and the rules, and stops getting traffic
    await kubectl.ok(['scale', 'deployment/web', '--replicas=1']);
    const remaining = await waitFor('one web pod left in the EndpointSlice', async () => {
      const s = await kubectl.json<{ items: { endpoints?: { targetRef?: { name: string }; conditions: { ready?: boolean } }[] }[] }>(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
      const ready = s.items.flatMap((x) => x.endpoints ?? []).filter((e) => e.conditions.ready !== false);
      return ready.length === 1 ? ready[0].targetRef?.name : undefined;
    }, 60_000);
    await waitFor('only the remaining pod answering', async () => {
      const answers = new Set<string>();
      for (let i = 0; i < 8; i++) answers.add(await fromPod(clusterIP));
      return answers.size === 1 && answers.has(remaining!);
    }, 60_000, 500);
  });

  test('ServiceLB: a LoadBalancer Service gets the node\'s address as its ingress and answers there; another loadBalancerClass is left alone', async () => {
    await kubectl.ok(['run', 'lb-web', `--image=${IMAGE}`, '--restart=Never', '--labels=app=lb-web', '--', 'sh', '-c', `echo lb-web > /tmp/index.html; ${STOP_ON_TERM} httpd -f -p 8080 -h /tmp & wait`]);
    // the other class first: the controller's single worker has handled it by the time ours has its ingress
    await kubectl.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb-other' }, spec: { type: 'LoadBalancer', loadBalancerClass: 'example.com/other', selector: { app: 'lb-web' }, ports: [{ port: 82, targetPort: 8080 }] } }) });
    await kubectl.ok(['expose', 'pod', 'lb-web', '--type=LoadBalancer', '--port=81', '--target-port=8080']);
    const ingress = await waitFor('the LoadBalancer ingress', async () => {
      const svc = await kubectl.json<{ status: { loadBalancer?: { ingress?: { ip: string; ipMode?: string }[] } } }>(['get', 'service', 'lb-web']);
      return svc.status.loadBalancer?.ingress?.length ? svc.status.loadBalancer.ingress : undefined;
    }, 30_000, 250);
    assert.deepEqual(ingress, [{ ip: HOST_IP, ipMode: 'VIP' }]);
    const other = await kubectl.json<{ status: { loadBalancer?: { ingress?: unknown[] } } }>(['get', 'service', 'lb-other']);
    assert.equal(other.status.loadBalancer?.ingress, undefined);
    assert.match(await kubectl.ok(['get', 'service', 'lb-web']), new RegExp(`lb-web\\s+LoadBalancer\\s+\\S+\\s+${HOST_IP.replace(/\./g, '\\.')}\\s+81:`));

    // the host reaches the port on the ingress IP (kube-proxy's rules for load balancer IPs)
    await waitFor('the load balancer IP answering', async () => {
      const r = await onHost('sh', ['-c', `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | busybox nc -w 3 ${HOST_IP} 81`]);
      return r.code === 0 && r.stdout.split('\r\n\r\n')[1]?.trim() === 'lb-web';
    }, 60_000, 500);
    const saved = await onHost('iptables-save', ['-t', 'nat']);
    assert.match(saved.stdout, new RegExp(`-A KUBE-SERVICES -d ${HOST_IP.replace(/\./g, '\\.')}/32 -p tcp .*"default/lb-web loadbalancer IP".*--dport 81 -j KUBE-EXT-`));
  });
});
