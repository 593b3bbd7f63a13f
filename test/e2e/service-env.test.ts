import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

/** The pod's environment as its container printed it. */
function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) env[line.slice(0, i)] = line.slice(i + 1);
  }
  return env;
}

describe('service environment variables in pods (KUBERNETES_SERVICE_HOST, Docker links)', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  before(async () => {
    server = await startServer({ args: ['--disable', 'proxy,dns'], timeoutMs: 90_000 });
    k = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await k?.exec(['delete', 'namespace', 'shop', '--wait=true', '--timeout=30s']);
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  async function envOf(name: string, enableServiceLinks?: boolean): Promise<Record<string, string>> {
    const pod = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'shop' },
      spec: {
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        ...(enableServiceLinks === undefined ? {} : { enableServiceLinks }),
        containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'env'], env: [{ name: 'WEB_FRONT_SERVICE_PORT', value: 'mine' }, { name: 'API_URL', value: 'https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)' }] }],
      },
    };
    await k.ok(['create', '-f', '-'], { input: JSON.stringify(pod) });
    await waitFor(`pod ${name} to finish`, async () => (await k.exec(['get', 'pod', name, '-n', 'shop', '-o', 'jsonpath={.status.phase}'])).stdout === 'Succeeded', 60_000);
    return parseEnv(await k.ok(['logs', name, '-n', 'shop']));
  }

  it('sets the kubernetes Service and, with service links, every Service of the namespace', async () => {
    await k.ok(['create', 'namespace', 'shop']);
    await k.ok(['create', 'service', 'clusterip', 'web-front', '--tcp=80:8080', '--tcp=9090:9090', '-n', 'shop']);
    await k.ok(['create', 'service', 'clusterip', 'db', '--clusterip=None', '--tcp=5432:5432', '-n', 'shop']);
    await k.ok(['create', 'namespace', 'other']);
    await k.ok(['create', 'service', 'clusterip', 'elsewhere', '--tcp=81:81', '-n', 'other']);
    const apiIP = await k.ok(['get', 'service', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.spec.clusterIP}']);
    const webIP = await k.ok(['get', 'service', 'web-front', '-n', 'shop', '-o', 'jsonpath={.spec.clusterIP}']);

    const env = await envOf('links');
    assert.equal(env.KUBERNETES_SERVICE_HOST, apiIP);
    assert.equal(env.KUBERNETES_SERVICE_PORT, '443');
    assert.equal(env.KUBERNETES_SERVICE_PORT_HTTPS, '443');
    assert.equal(env.KUBERNETES_PORT, `tcp://${apiIP}:443`);
    assert.equal(env.KUBERNETES_PORT_443_TCP, `tcp://${apiIP}:443`);
    assert.equal(env.KUBERNETES_PORT_443_TCP_PROTO, 'tcp');
    assert.equal(env.KUBERNETES_PORT_443_TCP_PORT, '443');
    assert.equal(env.KUBERNETES_PORT_443_TCP_ADDR, apiIP);
    assert.equal(env.API_URL, `https://${apiIP}:443`, '$(VAR) sees the service variables');
    assert.equal(env.WEB_FRONT_SERVICE_HOST, webIP);
    assert.equal(env.WEB_FRONT_SERVICE_PORT, 'mine', "the container's own value wins");
    assert.equal(env['WEB_FRONT_SERVICE_PORT_80_8080'], '80');
    assert.equal(env.WEB_FRONT_PORT, `tcp://${webIP}:80`);
    assert.equal(env.WEB_FRONT_PORT_9090_TCP_ADDR, webIP);
    assert.equal(env.DB_SERVICE_HOST, undefined, 'headless Services have no variables');
    assert.equal(env.ELSEWHERE_SERVICE_HOST, undefined, 'nor have Services of other namespaces');
  });

  it('keeps only the kubernetes Service with enableServiceLinks: false', async () => {
    const env = await envOf('nolinks', false);
    assert.ok(env.KUBERNETES_SERVICE_HOST);
    assert.equal(env.KUBERNETES_PORT_443_TCP_PORT, '443');
    assert.equal(env.WEB_FRONT_SERVICE_HOST, undefined);
    assert.equal(env.WEB_FRONT_PORT, undefined);
  });
});
