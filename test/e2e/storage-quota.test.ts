import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { etcdMissingReason, startEtcdCluster } from '../../src/storage/etcd/testing/etcd-cluster.js';
import { skipUnless } from '../../src/testing/requirements.js';
import { kubectlFor, removeDir, ROOT, run, startServer, waitFor, type ServerProcess } from './harness.js';

const SKIFF = join(ROOT, 'bin', 'skiff.js');
const QUOTA = 8 * 1024 * 1024;

function request(server: ServerProcess, method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const pki = join(server.dataDir, 'pki');
  return new Promise((resolve, reject) => {
    const req = https.request(
      { method, host: '127.0.0.1', port: server.port, path, ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')), agent: false, headers: body ? { 'Content-Type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Writes 500 kB ConfigMaps until one is refused; returns the refusal and the
 * names written. The quota is a few MiB, so this takes a few dozen writes.
 */
async function fillUntilRefused(server: ServerProcess): Promise<{ refused: { status: number; text: string }; names: string[] }> {
  const names: string[] = [];
  for (let n = 0; n < 200; n++) {
    const name = `big-${n}`;
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: 'x'.repeat(500_000) } });
    const r = await request(server, 'POST', '/api/v1/namespaces/default/configmaps', body);
    if (r.status !== 201) return { refused: r, names };
    names.push(name);
  }
  throw new Error('200 writes of 500 kB were all accepted: no quota');
}

/** The NOSPACE checks both backends share: a 500 Status with etcd's text, reads served, /readyz false. */
async function assertNoSpace(server: ServerProcess, refused: { status: number; text: string }): Promise<void> {
  const k = kubectlFor(server.kubeconfig);
  assert.equal(refused.status, 500, refused.text);
  const status = JSON.parse(refused.text) as { kind: string; code: number; reason: string; message: string };
  assert.deepEqual({ kind: status.kind, code: status.code, reason: status.reason, message: status.message }, { kind: 'Status', code: 500, reason: undefined, message: 'etcdserver: mvcc: database space exceeded' });
  assert.match(await k.fails(['create', 'configmap', 'while-full']), /etcdserver: mvcc: database space exceeded/);
  assert.match(await k.ok(['get', 'configmap', 'before', '-o', 'name']), /configmap\/before/);
  const notReady = await request(server, 'GET', '/readyz?verbose');
  assert.equal(notReady.status, 500);
  assert.match(notReady.text, /\[-\]etcd-readiness failed/);
  assert.equal(server.proc.exitCode, null, 'no crash');
}

describe('storage space quota (etcd NOSPACE), with skiff apiserver and kubectl', () => {
  it('etcd past --quota-backend-bytes: writes get 500 with etcd\'s text, reads go on, /readyz fails; skiff storage defrag recovers', skipUnless(etcdMissingReason()), async () => {
    const etcd = await startEtcdCluster({ size: 1, args: ['--quota-backend-bytes', String(QUOTA)] });
    let server: ServerProcess | undefined;
    try {
      server = await startServer({ command: 'apiserver', args: ['--storage', etcd.storageUrl] });
      const s = server;
      const k = kubectlFor(s.kubeconfig);
      await k.ok(['create', 'configmap', 'before']);
      const { refused, names } = await fillUntilRefused(s);
      await assertNoSpace(s, refused);
      const check = await run(process.execPath, [SKIFF, 'storage', 'check', '--storage', etcd.storageUrl]);
      assert.equal(check.code, 0, check.stderr);
      assert.match(check.stdout, /^alarm NOSPACE: etcd member [0-9a-f]+: database space exceeded/m);
      // deletes are taken under the alarm (they make room); the alarm stays until an operator reclaims the space
      await k.ok(['delete', 'configmap', ...names]);
      assert.equal((await request(s, 'GET', '/readyz')).status, 500, 'deleting alone does not disarm etcd');
      const defrag = await run(process.execPath, [SKIFF, 'storage', 'defrag', '--storage', etcd.storageUrl]);
      assert.equal(defrag.code, 0, defrag.stderr);
      assert.match(defrag.stdout, /^defragmented http:\/\/127\.0\.0\.1:\d+: [\d.]+ MiB → [\d.]+ MiB$/m);
      assert.match(defrag.stdout, /^compacted at revision \d+; NOSPACE alarms disarmed$/m);
      assert.doesNotMatch(defrag.stdout, /^alarm /m);
      await waitFor('ready again', async () => (await request(s, 'GET', '/readyz')).status === 200, 30_000);
      await k.ok(['create', 'configmap', 'after']);
      assert.match(await k.ok(['get', 'configmap', 'before', 'after', '-o', 'name']), /configmap\/before\nconfigmap\/after/);
    } finally {
      await server?.stop();
      if (server) await removeDir(server.dataDir);
      await etcd.stop();
    }
  });

  it('SQLite past --storage-quota-bytes: the same refusals; the server compacts and defragments by itself once room is made', async () => {
    const server = await startServer({ command: 'apiserver', args: ['--storage-quota-bytes', String(QUOTA)] });
    try {
      const k = kubectlFor(server.kubeconfig);
      await k.ok(['create', 'configmap', 'before']);
      const { refused, names } = await fillUntilRefused(server);
      await assertNoSpace(server, refused);
      await k.ok(['delete', 'configmap', ...names]);
      await waitFor('ready again', async () => (await request(server, 'GET', '/readyz')).status === 200, 30_000);
      await k.ok(['create', 'configmap', 'after']);
      assert.match(server.logs(), /compacted and defragmented storage under NOSPACE/);
    } finally {
      await server.stop();
      await removeDir(server.dataDir);
    }
  });
});
