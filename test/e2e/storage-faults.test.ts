import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, writeSync, statSync, unlinkSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { missingCommand, missingRoot, firstMissing, skipUnless } from '../../src/testing/requirements.js';
import { kubectlFor, removeDir, ROOT, startServer, waitFor, type ServerProcess } from './harness.js';

const SKIFF = join(ROOT, 'bin', 'skiff.js');

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

const get = (server: ServerProcess, path: string) => request(server, 'GET', path);

/** `skiff apiserver` on a data dir that should not start: its exit code and stderr. */
function startRefused(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [SKIFF, 'apiserver', '--data-dir', dataDir, '--bind-address', '127.0.0.1', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('storage faults, with skiff apiserver and kubectl', () => {
  it('refuses to start over a corrupt or foreign database with a clear message, leaving it untouched', async () => {
    const server = await startServer({ command: 'apiserver' });
    const k = kubectlFor(server.kubeconfig);
    for (let i = 0; i < 20; i++) await k.ok(['create', 'configmap', `c${i}`, `--from-literal=v=${'x'.repeat(2000)}`]);
    assert.equal(await server.stop(), 0);
    const db = join(server.dataDir, 'state.db');
    const size = statSync(db).size;
    const fd = openSync(db, 'r+');
    for (let page = 2; page * 4096 < size; page += 2) writeSync(fd, Buffer.alloc(100, 0x5a), 0, 100, page * 4096 + 8);
    closeSync(fd);
    const corrupt = await startRefused(server.dataDir);
    assert.equal(corrupt.code, 1, corrupt.stderr);
    assert.match(corrupt.stderr, /^error: .*state\.db is corrupt \(.*\); refusing to start over it; restore it from a backup or move it away$/m);
    assert.equal(statSync(db).size, size);
    writeFileSync(db, 'these are not the bytes you are looking for '.repeat(200));
    const foreign = await startRefused(server.dataDir);
    assert.equal(foreign.code, 1);
    assert.match(foreign.stderr, /state\.db is not a SQLite database/);
    await removeDir(server.dataDir);
  });

  it('stops acknowledging writes once the database file is deleted; reads go on and /readyz fails', async () => {
    const server = await startServer({ command: 'apiserver' });
    try {
      const k = kubectlFor(server.kubeconfig);
      await k.ok(['create', 'configmap', 'before']);
      unlinkSync(join(server.dataDir, 'state.db'));
      const out = await k.fails(['create', 'configmap', 'after']);
      assert.match(out, /was deleted while the server was running; writes are refused/);
      assert.match(await k.ok(['get', 'configmap', 'before']), /before/);
      const ready = await get(server, '/readyz?verbose');
      assert.equal(ready.status, 500);
      assert.match(ready.text, /\[-\]etcd-readiness failed/);
      assert.equal(server.proc.exitCode, null, 'still running');
    } finally {
      await server.stop();
      await removeDir(server.dataDir);
    }
  });

  it('a full disk turns /readyz false and writes into 5xx Status, and everything recovers when space returns', skipUnless(firstMissing(missingRoot(), missingCommand('mount', ['--version']))), async () => {
    const mnt = mkdtempSync(join(tmpdir(), 'skiff-full-'));
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mnt]);
    assert.equal(mounted.status, 0, mounted.stderr?.toString());
    const dataDir = join(mnt, 'data');
    mkdirSync(dataDir);
    let server: ServerProcess | undefined;
    try {
      server = await startServer({ command: 'apiserver', dataDir });
      const k = kubectlFor(server.kubeconfig);
      await k.ok(['create', 'configmap', 'before']);
      // fill the file system
      const filler = join(mnt, 'filler');
      const fd = openSync(filler, 'w');
      try {
        const chunk = Buffer.alloc(1024 * 1024, 1);
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
      } finally {
        closeSync(fd);
      }
      const s = server;
      // writes fail with a Status (500 with etcd's wording, as upstream maps NOSPACE); enough of them to exhaust the WAL's slack
      let n = 0;
      const failed = await waitFor(
        'a write refused for lack of space',
        async () => {
          const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${n++}` }, data: { v: 'x'.repeat(500_000) } });
          const r = await request(s, 'POST', '/api/v1/namespaces/default/configmaps', body);
          return r.status !== 201 ? r : undefined;
        },
        60_000,
        10,
      );
      assert.equal(failed.status, 500, failed.text);
      const status = JSON.parse(failed.text) as { kind: string; code: number; message: string };
      assert.equal(status.kind, 'Status');
      assert.match(status.message, /no space left on the device of .*state\.db: writes are refused until space is freed/);
      assert.match(await k.fails(['create', 'configmap', 'while-full']), /no space left on the device/);
      const notReady = await get(s, '/readyz?verbose');
      assert.equal(notReady.status, 500);
      assert.match(notReady.text, /\[-\]etcd-readiness failed/);
      assert.match(await k.ok(['get', 'configmap', 'before']), /before/);
      assert.equal(s.proc.exitCode, null, 'no crash');
      rmSync(filler);
      await waitFor('ready again', async () => (await get(s, '/readyz')).status === 200, 30_000);
      await k.ok(['create', 'configmap', 'after']);
      assert.equal(s.proc.exitCode, null);
    } finally {
      await server?.stop();
      spawnSync('umount', ['-l', mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });

  it('a flood from one user gets 429s from its APF priority level while another user and the admin are still served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-flood-'));
    writeFileSync(join(dir, 'tokens.csv'), 'flood-token,flooder,1001\nother-token,bystander,1002\n');
    const server = await startServer({ command: 'apiserver', args: ['--token-auth-file', join(dir, 'tokens.csv')] });
    const agent = new https.Agent({ keepAlive: true, maxSockets: 200, ca: readFileSync(join(server.dataDir, 'pki', 'ca.crt')) });
    const codes = new Map<number, number>();
    let rejectedHeaders: Record<string, unknown> | undefined;
    let flooding = true;
    const workers: Promise<void>[] = [];
    const list = (token: string) =>
      new Promise<{ status: number; headers: Record<string, unknown> }>((resolve) => {
        https
          .get({ host: '127.0.0.1', port: server.port, path: '/api/v1/namespaces/default/configmaps', agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
          })
          .on('error', () => resolve({ status: 0, headers: {} }));
      });
    try {
      const k = kubectlFor(server.kubeconfig);
      // both users may read ConfigMaps: their requests are served, not refused by authorization
      await k.ok(['create', 'clusterrole', 'flood-reader', '--verb=get,list', '--resource=configmaps']);
      await k.ok(['create', 'clusterrolebinding', 'readers', '--clusterrole=flood-reader', '--user=flooder', '--user=bystander']);
      // upstream's bootstrap configuration is served
      assert.match(await k.ok(['get', 'flowschemas']), /global-default\s+global-default\s+9900\s+ByUser/);
      assert.match(await k.ok(['get', 'prioritylevelconfigurations']), /workload-low\s+Limited/);
      // the flooder gets a priority level of its own with one short queue
      await k.ok(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: [
            { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'floods' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 5 } } } } },
            {
              apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
              kind: 'FlowSchema',
              metadata: { name: 'flooders' },
              spec: { priorityLevelConfiguration: { name: 'floods' }, matchingPrecedence: 1000, distinguisherMethod: { type: 'ByUser' }, rules: [{ subjects: [{ kind: 'User', user: { name: 'flooder' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }] },
            },
          ],
        }),
      });
      const uid = (await k.ok(['get', 'flowschema', 'flooders', '-o', 'jsonpath={.metadata.uid}'])).trim();
      await waitFor('the flooder classified by its FlowSchema', async () => (await list('flood-token')).headers['x-kubernetes-pf-flowschema-uid'] === uid);
      for (let i = 0; i < 100; i++) {
        workers.push(
          (async () => {
            while (flooding) {
              const r = await list('flood-token');
              codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
              if (r.status === 429) rejectedHeaders = r.headers;
            }
          })(),
        );
      }
      await waitFor('429s for the flooding user', () => (codes.get(429) ?? 0) > 10, 60_000);
      assert.equal(rejectedHeaders?.['x-kubernetes-pf-flowschema-uid'], uid);
      assert.equal(rejectedHeaders?.['retry-after'], '1');
      // another user's flow and the admin (exempt) are served during the flood
      for (let i = 0; i < 3; i++) assert.equal((await list('other-token')).status, 200);
      // kubectl exits 0 only with an answer from the server; how long the admin waited is printed (no timing assertions)
      const kubectlMs: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        await k.ok(['get', 'nodes', '--request-timeout', '5s']);
        kubectlMs.push(performance.now() - started);
      }
      // and the same request without kubectl's own start-up: the admin's GET /api/v1/nodes, 20 in a row
      const adminMs: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        assert.equal((await get(server, '/api/v1/nodes')).status, 200);
        adminMs.push(performance.now() - started);
      }
      assert.ok((codes.get(429) ?? 0) > 10, 'the flood is still refused while the admin is served');
      adminMs.sort((a, b) => a - b);
      process.stdout.write(`# during the flood: kubectl get nodes took ${kubectlMs.map((ms) => ms.toFixed(0)).join(', ')} ms; admin GET /api/v1/nodes p50 ${adminMs[9].toFixed(1)} ms, max ${adminMs[19].toFixed(1)} ms\n`);
      assert.ok((codes.get(200) ?? 0) > 0, 'the flooder is served too, within its share');
      assert.match(await k.ok(['get', '--raw', '/metrics']), /apiserver_flowcontrol_rejected_requests_total\{flow_schema="flooders",priority_level="floods",reason="queue-full"\} \d+/);
    } finally {
      flooding = false;
      await Promise.all(workers);
      agent.destroy();
      process.stdout.write(`# flood answers by code: ${JSON.stringify(Object.fromEntries(codes))}\n`);
      await server.stop();
      await removeDir(server.dataDir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
