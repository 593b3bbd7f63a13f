import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { busyboxLayer, dockerArchive } from '../../src/kubelet/images/busybox-image.js';
import { httpBody, httpGetScript, inNetns, NetnsLan, netnsNodeRequirements, STOP_ON_TERM, type PodJson } from './support/netns-node.js';
import { kubectlFor, removeDir, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

const SKIFF = join(ROOT, 'bin/skiff.js');
const IMAGE = 'skiff.test/busybox:1';

/** The control plane's host and two node hosts on one link (192.168.249.0/24). */
const CP_IP = '192.168.249.1';
const NODES = [{ name: 'node-1', ip: '192.168.249.11' }, { name: 'node-2', ip: '192.168.249.12' }] as const;

/** A skiff process on one of the node hosts; its log is kept for failure messages. */
interface NodeProcess { proc: ChildProcess; exited: Promise<unknown>; logs(): string }

function startInNetns(netns: string, args: string[]): NodeProcess {
  const proc = spawn('nsenter', [`--net=${netns}`, '--', process.execPath, SKIFF, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SKIFF_LOG_LEVEL: 'info' } });
  let logs = '';
  proc.stderr!.on('data', (d: Buffer) => (logs = (logs + d.toString()).slice(-20_000)));
  return { proc, exited: new Promise((r) => proc.once('exit', r)), logs: () => logs };
}

async function stopProcess(p: NodeProcess | undefined): Promise<void> {
  if (!p) return;
  if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGTERM');
  const timer = setTimeout(() => p.proc.kill('SIGKILL'), 20_000);
  await p.exited;
  clearTimeout(timer);
}

/**
 * Three hosts as network namespaces on one bridge: the control plane
 * (`skiff server` without a kubelet, with cluster DNS) on one, and on each
 * of the other two a node as on its own machine, `skiff agent`: the kubelet
 * (containerd, the CNI bridge over the pod CIDR
 * node IPAM gave it), kube-proxy in iptables mode and podnet routing to the
 * other node's pod CIDR (host-gw). Nothing touches the machine's own network.
 */
describe('two nodes on network-namespace hosts', netnsNodeRequirements, () => {
  const lan = new NetnsLan(`skiff-${process.pid}`, [{ name: 'cp', ip: CP_IP }, ...NODES]);
  let server: ServerProcess | undefined;
  let kubectl: ReturnType<typeof kubectlFor>;
  const dirs: string[] = [];
  const processes: NodeProcess[] = [];
  const onCp = inNetns(lan.path('cp'));
  const nodeLogs = () => processes.map((p) => p.logs().slice(-3000)).join('\n---\n');
  /** What the node hosts' routes and NAT rules are, for a failure's message. */
  const network = async () => {
    const out: string[] = [];
    for (const n of NODES) {
      const on = inNetns(lan.path(n.name));
      out.push(`${n.name}:`, (await on('ip', ['route'])).stdout, (await on('ip', ['-br', 'addr'])).stdout, (await on('iptables-save', [])).stdout, (await on('sysctl', ['net.ipv4.ip_forward'])).stdout);
    }
    return out.join('\n');
  };

  before(async () => {
    await lan.create();
    server = await startServer({ args: ['--disable', 'kubelet,proxy', '--bind-address', '0.0.0.0'], wrap: ['nsenter', `--net=${lan.path('cp')}`, '--'], timeoutMs: 60_000 });
    kubectl = kubectlFor(server.kubeconfig, undefined, ['nsenter', `--net=${lan.path('cp')}`, '--']);
    // the admin's credentials at the control plane's address, for the kubelet (joining by token is node-join.test.ts's; its CSR round
    // trip is slow on a busy machine) and for kube-proxy and podnet, which list every Service, EndpointSlice and Node
    const remote = join(server.dataDir, 'remote.kubeconfig');
    writeFileSync(remote, readFileSync(server.kubeconfig, 'utf8').replace(/https:\/\/127\.0\.0\.1:/g, `https://${CP_IP}:`));
    const archive = join(server.dataDir, 'busybox.tar');
    writeFileSync(archive, dockerArchive(busyboxLayer(), { tags: [IMAGE] }));
    for (const node of NODES) {
      const netns = lan.path(node.name);
      const rootDir = mkdtempSync(join(tmpdir(), `skiff-${node.name}-`));
      dirs.push(rootDir);
      processes.push(startInNetns(netns, ['agent', '--kubeconfig', remote, '--node-name', node.name, '--node-ip', node.ip,
        '--container-runtime', 'containerd', '--root-dir', rootDir, '--port', '0', '--health-port', '0', '--cluster-dns', '10.96.0.10', '--proxy-kubeconfig', remote, '--proxy-mode', 'iptables']));
    }
    for (const [i, node] of NODES.entries()) {
      await waitFor(`${node.name} Ready`, async () => {
        const r = await kubectl.exec(['get', 'node', node.name, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']);
        return r.stdout === 'True';
      }, 180_000).catch((err: Error) => assert.fail(`${err.message}\n${nodeLogs()}`));
      const imported = await run(process.execPath, [SKIFF, 'images', 'import', '--root-dir', dirs[i]!, archive]);
      assert.equal(imported.code, 0, imported.stderr);
    }
  });

  after(async () => {
    // pods first: a standalone kubelet leaves its pods running when it stops
    await kubectl?.exec(['delete', 'pods', '--all', '--wait=true', '--timeout=30s']);
    for (const p of processes) await stopProcess(p);
    await server?.stop();
    await lan.remove();
    if (server) await removeDir(server.dataDir);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const runOn = (node: string, name: string, script: string, labels: string) =>
    kubectl.ok(['run', name, `--image=${IMAGE}`, '--restart=Never', `--labels=${labels}`, `--overrides=${JSON.stringify({ spec: { nodeSelector: { 'kubernetes.io/hostname': node } } })}`, '--', 'sh', '-c', script]);
  const running = (name: string) => waitFor(`${name} running`, async () => {
    const p = await kubectl.json<PodJson>(['get', 'pod', name]);
    return p.status.phase === 'Running' && p.status.podIP ? p : undefined;
  }, 90_000, 500).catch((err: Error) => assert.fail(`${err.message}\n${nodeLogs()}`));

  /** The peer address the CGI printed: the last line, without httpd's `[::ffff:…]` form of IPv4. */
  const peerOf = (out: string) => out.trim().split('\n').at(-1)?.trim().replace(/^\[(?:::ffff:)?|\]$/g, '') || undefined;
  const okPeer = (out: string) => (/^HTTP\/1\.[01] 200/.test(out) ? peerOf(out) : undefined);
  /** A web server answering its hostname at / and the peer's address at /cgi-bin/ip (busybox httpd CGI). */
  const WEB = `mkdir -p /www/cgi-bin; hostname > /www/index.html; printf '#!/bin/sh\\necho Content-Type: text/plain\\necho\\necho $REMOTE_ADDR\\n' > /www/cgi-bin/ip; chmod +x /www/cgi-bin/ip; ${STOP_ON_TERM} httpd -f -p 8080 -h /www & wait`;

  test('a pod on node-1 reaches a pod on node-2 by its IP (unNATed) and a Service whose only pod is on node-2 by DNS name', async () => {
    await runOn('node-2', 'web', WEB, 'app=web');
    await runOn('node-1', 'client', `${STOP_ON_TERM} sleep 3600 & wait`, 'app=client');
    await kubectl.ok(['expose', 'pod', 'web', '--port=80', '--target-port=8080']);
    const web = await running('web');
    const client = await running('client');
    assert.equal(web.spec.nodeName, 'node-2');
    assert.equal(client.spec.nodeName, 'node-1');
    const cidrs = await kubectl.json<{ items: { metadata: { name: string }; spec: { podCIDR?: string } }[] }>(['get', 'nodes']);
    const cidrOf = (n: string) => cidrs.items.find((x) => x.metadata.name === n)?.spec.podCIDR;
    assert.ok(cidrOf('node-1') && cidrOf('node-2') && cidrOf('node-1') !== cidrOf('node-2'), JSON.stringify(cidrs.items.map((x) => x.spec)));

    // node-1 routes node-2's pod CIDR through node-2's address (host-gw)
    const routes = await waitFor('node-1\'s route to node-2\'s pods', async () => {
      const r = await inNetns(lan.path('node-1'))('ip', ['-4', 'route', 'show', cidrOf('node-2')!]);
      return r.stdout.includes(`via ${NODES[1].ip}`) ? r.stdout : undefined;
    }, 30_000, 500);
    assert.match(routes, /proto 151/);

    // pod to pod across nodes: the server sees the client pod's own address
    const fromClient = (host: string, port: number, path?: string) => kubectl.exec(['exec', 'client', '--', 'sh', '-c', httpGetScript(host, port, path)]);
    let last = '';
    const peer = await waitFor('web answering the client pod by pod IP', async () => {
      const r = await fromClient(web.status.podIP!, 8080, '/cgi-bin/ip');
      last = r.stdout + r.stderr;
      return okPeer(r.stdout);
    }, 30_000, 500).catch(async (err: Error) => assert.fail(`${err.message}: ${last}\n${await network()}`));
    assert.equal(peer, client.status.podIP);

    // by DNS name (the short name through the pod's search path), through node-1's kube-proxy to node-2
    const body = await waitFor('web answering by name', async () => httpBody((await fromClient('web', 80)).stdout), 60_000, 500)
      .catch((err: Error) => assert.fail(`${err.message}\n${nodeLogs()}`));
    assert.equal(body, 'web');
    assert.equal(httpBody((await fromClient('web.default.svc.cluster.local', 80)).stdout), 'web');
  });

  test('externalTrafficPolicy Local keeps the client\'s address and answers the health check node port only where the pod is; Cluster masquerades', async () => {
    await running('web');
    const local = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-local' }, spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } };
    const cluster = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-cluster' }, spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } };
    await kubectl.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [local, cluster] }) });
    type Svc = { spec: { healthCheckNodePort?: number; ports: { nodePort: number }[] } };
    const webLocal = await kubectl.json<Svc>(['get', 'service', 'web-local']);
    const nodePortOf = async (name: string) => (await kubectl.json<Svc>(['get', 'service', name])).spec.ports[0]!.nodePort;
    const hc = webLocal.spec.healthCheckNodePort;
    assert.ok(hc && hc >= 30000 && hc <= 32767, `healthCheckNodePort ${hc}`);
    assert.notEqual(hc, webLocal.spec.ports[0]!.nodePort);

    // a client on the control plane's host (another machine to the nodes) asks each node
    const fromCp = async (host: string, port: number, path?: string) => (await onCp('sh', ['-c', httpGetScript(host, port, path)])).stdout;
    const [n1, n2] = [NODES[0].ip, NODES[1].ip];
    // Local: node-2 has the pod and hands it the client's own address
    const seen = await waitFor('web-local\'s node port on node-2', async () => okPeer(await fromCp(n2, webLocal.spec.ports[0]!.nodePort, '/cgi-bin/ip')), 60_000, 500)
      .catch((err: Error) => assert.fail(`${err.message}\n${nodeLogs()}`));
    assert.equal(seen, CP_IP);
    // Cluster: node-1 forwards to node-2's pod, masquerading as itself
    const clusterPort = await nodePortOf('web-cluster');
    const masqueraded = await waitFor('web-cluster\'s node port on node-1', async () => okPeer(await fromCp(n1, clusterPort, '/cgi-bin/ip')), 60_000, 500);
    assert.equal(masqueraded, n1);

    // the health check node port, as load balancers probe it: 200 where a local endpoint is, 503 elsewhere
    const probe = async (host: string) => {
      const out = await fromCp(host, hc, '/healthz');
      const status = /^HTTP\/1\.[01] (\d+)/.exec(out)?.[1];
      return status ? { status: Number(status), body: JSON.parse(httpBody(out) ?? '{}') as unknown } : undefined;
    };
    const atNode2 = await waitFor('the health check on node-2', () => probe(n2), 30_000, 500);
    assert.deepEqual(atNode2, { status: 200, body: { service: { namespace: 'default', name: 'web-local' }, localEndpoints: 1, serviceProxyHealthy: true } });
    const atNode1 = await waitFor('the health check on node-1', () => probe(n1), 30_000, 500);
    assert.deepEqual(atNode1, { status: 503, body: { service: { namespace: 'default', name: 'web-local' }, localEndpoints: 0, serviceProxyHealthy: true } });
  });
});
