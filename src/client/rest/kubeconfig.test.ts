import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeconfig, KubeconfigError } from './kubeconfig.js';
import { inClusterConfig } from './in-cluster-config.js';
import { defaultRestConfig } from './default-config.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

test('resolves current-context with inline data and a context namespace', () => {
  const content = `
apiVersion: v1
kind: Config
current-context: admin
clusters:
- name: skiff
  cluster: { server: "https://127.0.0.1:6443/", certificate-authority-data: ${b64('CA')} }
users:
- name: admin
  user: { client-certificate-data: ${b64('CERT')}, client-key-data: ${b64('KEY')} }
- name: bot
  user: { token: abc }
contexts:
- name: admin
  context: { cluster: skiff, user: admin, namespace: team }
- name: bot
  context: { cluster: skiff, user: bot }
`;
  const c = loadKubeconfig({ content });
  assert.equal(c.server, 'https://127.0.0.1:6443');
  assert.equal(c.ca?.toString(), 'CA');
  assert.equal(c.cert?.toString(), 'CERT');
  assert.equal(c.key?.toString(), 'KEY');
  assert.equal(c.namespace, 'team');
  const bot = loadKubeconfig({ content }, { context: 'bot' });
  assert.equal(bot.token, 'abc');
  assert.equal(bot.cert, undefined);
  assert.throws(() => loadKubeconfig({ content }, { context: 'nope' }), KubeconfigError);
});

test('reads file references relative to the kubeconfig directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kc-'));
  writeFileSync(join(dir, 'ca.crt'), 'FILECA');
  writeFileSync(join(dir, 'tok'), 'T');
  writeFileSync(
    join(dir, 'config'),
    `current-context: c
clusters: [{ name: k, cluster: { server: "https://h:1", certificate-authority: ca.crt, insecure-skip-tls-verify: true } }]
users: [{ name: u, user: { tokenFile: tok } }]
contexts: [{ name: c, context: { cluster: k, user: u } }]
`,
  );
  const c = loadKubeconfig(join(dir, 'config'));
  assert.equal(c.ca?.toString(), 'FILECA');
  assert.equal(c.insecureSkipTLSVerify, true);
  assert.equal(c.tokenFile, join(dir, 'tok'));
});

test('in-cluster config uses the service account files and env', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sa-'));
  writeFileSync(join(dir, 'token'), 'tok');
  writeFileSync(join(dir, 'ca.crt'), 'CA');
  writeFileSync(join(dir, 'namespace'), 'kube-system\n');
  const c = inClusterConfig({ dir, env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' } });
  assert.equal(c.server, 'https://[fd00::1]:443');
  assert.equal(c.tokenFile, join(dir, 'token'));
  assert.equal(c.ca?.toString(), 'CA');
  assert.equal(c.namespace, 'kube-system');
  assert.throws(() => inClusterConfig({ dir, env: {} }), KubeconfigError);
});

test('default config: explicit path, then $KUBECONFIG, then in-cluster, then ~/.kube/config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dc-'));
  const kc = (server: string) => `current-context: c
clusters: [{ name: k, cluster: { server: "${server}" } }]
contexts: [{ name: c, context: { cluster: k } }]
`;
  writeFileSync(join(dir, 'explicit'), kc('https://explicit:1'));
  writeFileSync(join(dir, 'env'), kc('https://env:1'));
  mkdirSync(join(dir, 'home', '.kube'), { recursive: true });
  writeFileSync(join(dir, 'home', '.kube', 'config'), kc('https://home:1'));
  mkdirSync(join(dir, 'sa'));
  writeFileSync(join(dir, 'sa', 'token'), 't');
  const cluster = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
  const base = { home: join(dir, 'home'), dir: join(dir, 'sa') };
  const server = (o: Parameters<typeof defaultRestConfig>[0]) => defaultRestConfig({ ...base, ...o }).server;
  assert.equal(server({ kubeconfig: join(dir, 'explicit'), env: { KUBECONFIG: join(dir, 'env'), ...cluster } }), 'https://explicit:1');
  assert.equal(server({ env: { KUBECONFIG: `${join(dir, 'missing')}:${join(dir, 'env')}`, ...cluster } }), 'https://env:1');
  assert.equal(server({ env: cluster }), 'https://10.0.0.1:443');
  assert.equal(server({ env: {} }), 'https://home:1');
  assert.throws(() => defaultRestConfig({ env: {}, home: join(dir, 'nowhere') }), KubeconfigError);
});
