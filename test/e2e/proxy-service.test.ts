import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

/** An HTTP server playing a pod: answers every request with its name. */
function backend(name: string, host: string, port: number): Promise<http.Server> {
  const server = http.createServer((_req, res) => res.end(name));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** GET http://host:port/path, resolving to the body, or rejecting on any failure. */
function get(host: string, port: number, path = '/'): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host, port, path, agent: false, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

async function bodies(host: string, port: number, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await get(host, port));
  return out;
}

const isRoot = process.getuid?.() === 0;

/**
 * Endpoints may not be loopback addresses (API validation), so the "pods"
 * listen on the host's own address, as pods of skiff's process runtime do:
 * one IP, a different port per pod.
 */
function hostIP(): string | undefined {
  return Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

describe('kube-proxy and the endpoints controllers', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  const backends: http.Server[] = [];
  const ports: Record<string, number> = {};
  const ip = hostIP();

  before(async () => {
    server = await startServer({ args: ['--disable', 'kubelet,scheduler'] });
    k = kubectlFor(server.kubeconfig);
    assert.ok(ip, 'the host needs a non-loopback IPv4 address');
    for (const name of ['a', 'b']) {
      const b = await backend(name, ip, 0);
      backends.push(b);
      ports[name] = (b.address() as AddressInfo).port;
    }
  });
  after(async () => {
    for (const b of backends) b.close();
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  // The named targetPort resolves per pod.
  const pod = (name: string, containerPort: number) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'web' } },
    spec: { nodeName: 'node-1', containers: [{ name: 'web', image: 'none', ports: [{ name: 'http', containerPort }] }] },
  });
  const setStatus = (name: string, ready: boolean) =>
    k.ok(['patch', 'pod', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({
      status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date().toISOString() }] },
    })]);

  it('publishes endpoints and slices, balances node port (and cluster IP) traffic, follows readiness, closes on delete', async () => {
    await k.ok(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod('web-a', ports.a), pod('web-b', ports.b)] }) });
    await k.ok(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } }),
    });
    await setStatus('web-a', true);
    await setStatus('web-b', true);

    type Ep = { subsets?: { addresses?: { ip: string; nodeName: string; targetRef: { name: string } }[]; notReadyAddresses?: { ip: string; targetRef: { name: string } }[]; ports: { port: number; name: string }[] }[] };
    // One subset per port: same IP, different ports.
    const ep = await waitFor('both pods in the Endpoints', async () => {
      const e = await k.json<Ep>(['get', 'endpoints', 'web']);
      return e.subsets?.length === 2 && e.subsets.every((s) => s.addresses?.length === 1) ? e : undefined;
    });
    const byPod = Object.fromEntries(ep.subsets!.map((s) => [s.addresses![0].targetRef.name, s]));
    assert.deepEqual(byPod['web-a'].ports, [{ name: 'http', port: ports.a, protocol: 'TCP' }]);
    assert.deepEqual(byPod['web-b'].ports, [{ name: 'http', port: ports.b, protocol: 'TCP' }]);
    assert.equal(byPod['web-a'].addresses![0].ip, ip);
    assert.equal(byPod['web-a'].addresses![0].nodeName, 'node-1');

    type Slices = { items: { metadata: { name: string; labels: Record<string, string>; ownerReferences: { kind: string; name: string }[] }; addressType: string; endpoints?: { addresses: string[]; conditions: { ready: boolean } }[]; ports: { port: number }[] }[] };
    // Different ports make different slices.
    const slices = await waitFor('both pods in EndpointSlices', async () => {
      const s = await k.json<Slices>(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
      return s.items.length === 2 && s.items.every((x) => x.endpoints?.length === 1 && x.endpoints[0].conditions.ready) ? s : undefined;
    });
    assert.deepEqual(slices.items.map((x) => x.ports[0].port).sort(), [ports.a, ports.b].sort());
    for (const slice of slices.items) {
      assert.match(slice.metadata.name, /^web-/);
      assert.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
      assert.equal(slice.metadata.ownerReferences[0].kind, 'Service');
      assert.equal(slice.addressType, 'IPv4');
    }

    const svc = await k.json<{ spec: { clusterIP: string; ports: { nodePort: number }[] } }>(['get', 'service', 'web']);
    const nodePort = svc.spec.ports[0].nodePort;
    const seen = await waitFor('both backends through the node port', async () => {
      const got = new Set(await bodies('127.0.0.1', nodePort, 4));
      return got.size === 2 ? got : undefined;
    });
    assert.deepEqual([...seen].sort(), ['a', 'b']);
    // Round-robin: consecutive requests alternate.
    const four = await bodies('127.0.0.1', nodePort, 4);
    assert.notEqual(four[0], four[1]);
    assert.equal(four[0], four[2]);

    if (isRoot) {
      const viaClusterIP = await waitFor('both backends through the cluster IP', async () => {
        const got = new Set(await bodies(svc.spec.clusterIP, 80, 4));
        return got.size === 2 ? got : undefined;
      });
      assert.equal(viaClusterIP.size, 2);
    }

    await setStatus('web-b', false);
    await waitFor('web-b not ready in the Endpoints', async () => {
      const e = await k.json<Ep>(['get', 'endpoints', 'web']);
      return e.subsets?.some((s) => s.notReadyAddresses?.[0]?.targetRef.name === 'web-b');
    });
    await waitFor('only web-a in rotation', async () => (await bodies('127.0.0.1', nodePort, 4)).every((b) => b === 'a'));

    const metricsPort = Number(/"metricsPort":(\d+)/.exec(server.logs())?.[1]);
    assert.ok(metricsPort > 0, 'the proxy logs its metrics port');
    assert.match(await get('127.0.0.1', metricsPort, '/metrics'), /kubeproxy_sync_proxy_rules_last_timestamp_seconds \d/);

    await k.ok(['delete', 'service', 'web']);
    await waitFor('the node port to close', async () => {
      try {
        await get('127.0.0.1', nodePort);
        return false;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'ECONNREFUSED';
      }
    });
    await waitFor('the Endpoints to go', async () => (await k.exec(['get', 'endpoints', 'web'])).code !== 0);
    await waitFor('the slices to go', async () => (await k.json<Slices>(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web'])).items.length === 0);
  });
});
