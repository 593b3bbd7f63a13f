import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { writeKubeconfig } from './kubeconfig.js';

test('writes a standard kubeconfig with embedded base64 credentials and mode 0600', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-kubeconfig-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'config');
  await writeFile(path, 'old', { mode: 0o644 });
  await writeKubeconfig(path, { server: 'https://127.0.0.1:6443', caPem: 'CA', certPem: 'CERT', keyPem: 'KEY', user: 'admin', cluster: 'skiff', context: 'skiff' });
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  const cfg = parse(await readFile(path, 'utf8'));
  assert.deepEqual(cfg, {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'skiff', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': 'Q0E=' } }],
    users: [{ name: 'admin', user: { 'client-certificate-data': 'Q0VSVA==', 'client-key-data': 'S0VZ' } }],
    contexts: [{ name: 'skiff', context: { cluster: 'skiff', user: 'admin' } }],
    'current-context': 'skiff',
    preferences: {},
  });
});

test('names that need quoting in YAML survive', async () => {
  const { renderKubeconfig } = await import('./kubeconfig.js');
  const odd = 'system:node:a b # "c"\n';
  const cfg = parse(renderKubeconfig({ server: 'https://[::1]:6443', caPem: 'CA', certPem: 'CERT', keyPem: 'KEY', user: odd, cluster: 'x: y', context: '- z' }));
  assert.equal(cfg.users[0].name, odd);
  assert.equal(cfg.contexts[0].context.user, odd);
  assert.equal(cfg.clusters[0].name, 'x: y');
  assert.equal(cfg['current-context'], '- z');
  assert.equal(cfg.clusters[0].cluster.server, 'https://[::1]:6443');
});
