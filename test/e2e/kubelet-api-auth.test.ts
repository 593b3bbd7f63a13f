import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { firstNodeName, kubectlFor, removeDir, startServer, type ServerProcess } from './harness.js';

/** One request to the kubelet's HTTPS port, with a bearer token or nothing (never a client certificate). */
function kubeletGet(port: number, path: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, rejectUnauthorized: false, headers: token ? { Authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('kubelet API: every caller authenticated and authorized (nodes/proxy, nodes/stats, …)', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  let node: string;
  let port: number;
  before(async () => {
    server = await startServer({ args: ['--disable', 'proxy,dns,scheduler'], timeoutMs: 90_000 });
    k = kubectlFor(server.kubeconfig);
    node = await firstNodeName(k);
    port = Number(await k.ok(['get', 'node', node, '-o', 'jsonpath={.status.daemonEndpoints.kubeletEndpoint.Port}']));
    assert.ok(port > 0);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('refuses a caller without credentials (401) or with a bad token (401)', async () => {
    assert.deepEqual(await kubeletGet(port, '/pods'), { status: 401, body: 'Unauthorized\n' });
    assert.equal((await kubeletGet(port, '/healthz')).status, 401);
    assert.equal((await kubeletGet(port, '/pods', 'not-a-token')).status, 401);
  });

  it('asks the API server whether a token holder may use nodes/<subresource>: 403 in upstream words, or through', async () => {
    await k.ok(['create', 'serviceaccount', 'nobody']);
    const nobody = (await k.ok(['create', 'token', 'nobody'])).trim();
    assert.deepEqual(await kubeletGet(port, '/pods', nobody), { status: 403, body: 'Forbidden (user=system:serviceaccount:default:nobody, verb=get, resource=nodes, subresource=proxy)\n' });

    // stats only: the stats paths pass authorization (the summary API answers), the rest does not
    await k.ok(['create', 'serviceaccount', 'stats-reader']);
    await k.ok(['create', 'clusterrole', 'node-stats', '--verb=get', '--resource=nodes/stats']);
    await k.ok(['create', 'clusterrolebinding', 'stats-reader', '--clusterrole=node-stats', '--serviceaccount=default:stats-reader']);
    const stats = (await k.ok(['create', 'token', 'stats-reader'])).trim();
    const summary = await kubeletGet(port, '/stats/summary', stats);
    assert.equal(summary.status, 200, summary.body);
    assert.ok((JSON.parse(summary.body) as { node?: { nodeName?: string } }).node?.nodeName, summary.body);
    assert.match((await kubeletGet(port, '/pods', stats)).body, /^Forbidden \(user=system:serviceaccount:default:stats-reader, verb=get, resource=nodes, subresource=proxy\)/);

    // upstream's system:kubelet-api-admin role opens everything
    await k.ok(['create', 'serviceaccount', 'kubelet-admin']);
    await k.ok(['create', 'clusterrolebinding', 'kubelet-admin', '--clusterrole=system:kubelet-api-admin', '--serviceaccount=default:kubelet-admin']);
    const admin = (await k.ok(['create', 'token', 'kubelet-admin'])).trim();
    const pods = await kubeletGet(port, '/pods', admin);
    assert.equal(pods.status, 200);
    assert.equal((JSON.parse(pods.body) as { kind: string }).kind, 'PodList');
  });

  it('still serves the API server (its client certificate is from the client CA)', async () => {
    const list = JSON.parse(await k.ok(['get', '--raw', `/api/v1/nodes/${node}/proxy/pods`])) as { kind: string };
    assert.equal(list.kind, 'PodList');
  });
});
