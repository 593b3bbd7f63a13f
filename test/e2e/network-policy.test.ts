import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { busyboxLayer, dockerArchive } from '../../src/kubelet/images/busybox-image.js';
import { netnsNodeRequirements, netnsWrap } from './support/netns-node.js';
import { firstNodeName, kubectlFor, removeDir, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

const IMAGE = 'skiff.test/busybox:1';
const HOST_IP = '192.168.252.1';
const STOP_ON_TERM = 'trap "exit 0" TERM;';

interface PodJson { metadata: { name: string }; status: { phase: string; podIP?: string } }

/**
 * A whole `skiff server` (containerd pods on the CNI bridge, iptables
 * kube-proxy, the netpol component) in a network namespace of its own, so
 * the policies' iptables rules never touch the machine's.
 */
describe('NetworkPolicy enforcement with pods in their network namespaces', netnsNodeRequirements, () => {
  let server: ServerProcess;
  let kubectl: ReturnType<typeof kubectlFor>;
  const onHost = (cmd: string, args: string[]) => run('nsenter', [`--net=/proc/${server.proc.pid}/ns/net`, '--', cmd, ...args], { timeoutMs: 15_000 });

  before(async () => {
    server = await startServer({ args: ['--container-runtime', 'containerd', '--proxy-mode', 'iptables', '--disable', 'dns'], wrap: netnsWrap(HOST_IP), timeoutMs: 60_000 });
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

  /** One HTTP request from a pod with nc (static busybox's wget crashes in getaddrinfo); the body, or undefined when refused. */
  async function fetchFrom(ns: string, pod: string, ip: string, timeoutSeconds = 3): Promise<string | undefined> {
    const r = await kubectl.exec(['exec', '-n', ns, pod, '--', 'sh', '-c', `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc -w ${timeoutSeconds} ${ip} 8080`]);
    const body = r.stdout.split('\r\n\r\n')[1]?.trim();
    return r.code === 0 && body ? body : undefined;
  }

  const policy = (ns: string, name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { namespace: ns, name }, spec });

  test('default deny blocks a pod until an allow rule admits one namespace; egress deny blocks outbound; removing the policies restores traffic', async () => {
    for (const ns of ['np-server', 'np-allowed', 'np-other']) await kubectl.ok(['create', 'namespace', ns]);
    await kubectl.ok(['label', 'namespace', 'np-allowed', 'access=yes']);
    await kubectl.ok(['run', 'server', '-n', 'np-server', `--image=${IMAGE}`, '--restart=Never', '--labels=app=server', '--', 'sh', '-c', `echo server > /tmp/index.html; ${STOP_ON_TERM} httpd -f -p 8080 -h /tmp & wait`]);
    for (const ns of ['np-allowed', 'np-other']) await kubectl.ok(['run', 'client', '-n', ns, `--image=${IMAGE}`, '--restart=Never', '--', 'sh', '-c', `${STOP_ON_TERM} sleep 3600 & wait`]);
    const running = async (ns: string, name: string) => {
      const p = await kubectl.json<PodJson>(['get', 'pod', '-n', ns, name]);
      return p.status.phase === 'Running' && p.status.podIP ? p.status.podIP : undefined;
    };
    const serverIP = await waitFor('the server pod running', () => running('np-server', 'server'), 90_000, 500);
    await waitFor('the client pods running', async () => (await running('np-allowed', 'client')) && (await running('np-other', 'client')), 90_000, 500);

    // no policy selects the server: both clients reach it
    for (const ns of ['np-allowed', 'np-other']) assert.equal(await waitFor(`${ns} reaching the server`, () => fetchFrom(ns, 'client', serverIP), 30_000, 500), 'server');

    // default deny for the server's namespace: nobody gets in any more
    await kubectl.ok(['apply', '-f', '-'], { input: policy('np-server', 'default-deny', { podSelector: {}, policyTypes: ['Ingress'] }) });
    await waitFor('the default deny to block np-other', async () => (await fetchFrom('np-other', 'client', serverIP, 2)) === undefined, 30_000, 500);
    assert.equal(await fetchFrom('np-allowed', 'client', serverIP, 2), undefined, 'np-allowed is blocked too before the allow rule');
    const saved = (await onHost('iptables-save', ['-t', 'filter'])).stdout;
    assert.match(saved, /-A FORWARD .*-j KUBE-ROUTER-FORWARD/);
    assert.match(saved, new RegExp(`-A KUBE-ROUTER-FORWARD -d ${serverIP.replace(/\./g, '\\.')}/32 .*-j KUBE-POD-FW-[A-Z2-7]{16}`));

    // an allow rule admits the namespace labelled access=yes: wait for it to work, then the other is still refused
    await kubectl.ok(['apply', '-f', '-'], { input: policy('np-server', 'allow-access', { podSelector: { matchLabels: { app: 'server' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ namespaceSelector: { matchLabels: { access: 'yes' } } }], ports: [{ protocol: 'TCP', port: 8080 }] }] }) });
    assert.equal(await waitFor('the allowed namespace getting in', () => fetchFrom('np-allowed', 'client', serverIP), 30_000, 500), 'server');
    assert.equal(await fetchFrom('np-other', 'client', serverIP, 2), undefined, 'np-other stays refused');

    // egress deny in the allowed namespace: its client cannot connect out any more
    await kubectl.ok(['apply', '-f', '-'], { input: policy('np-allowed', 'deny-egress', { podSelector: {}, policyTypes: ['Egress'] }) });
    await waitFor('the egress deny to block np-allowed', async () => (await fetchFrom('np-allowed', 'client', serverIP, 2)) === undefined, 30_000, 500);

    // without the policies everyone gets through again, and the pods' chains are gone
    await kubectl.ok(['delete', 'networkpolicy', '-n', 'np-server', '--all']);
    await kubectl.ok(['delete', 'networkpolicy', '-n', 'np-allowed', '--all']);
    for (const ns of ['np-allowed', 'np-other']) assert.equal(await waitFor(`${ns} reaching the server again`, () => fetchFrom(ns, 'client', serverIP), 30_000, 500), 'server');
    assert.doesNotMatch((await onHost('iptables-save', ['-t', 'filter'])).stdout, /KUBE-POD-FW-|KUBE-NWPLCY-/);
  });
});
