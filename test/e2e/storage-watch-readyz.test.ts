import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { etcdMissingReason, startEtcdCluster, type EtcdCluster } from '../../src/storage/etcd/testing/etcd-cluster.js';
import { skipUnless } from '../../src/testing/requirements.js';
import { kubectlFor, removeDir, startServer, type ServerProcess } from './harness.js';

function tlsOf(server: ServerProcess, withCert = true) {
  const pki = join(server.dataDir, 'pki');
  return {
    ca: readFileSync(join(pki, 'ca.crt'), 'utf8'),
    ...(withCert ? { cert: readFileSync(join(pki, 'admin.crt'), 'utf8'), key: readFileSync(join(pki, 'admin.key'), 'utf8') } : {}),
    agent: false as const,
  };
}

function request(server: ServerProcess, method: string, path: string, body?: unknown, withCert = true): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: server.port, path, method, ...tlsOf(server, withCert), headers: { 'Content-Type': 'application/json', Accept: 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a watcher that stops reading, against skiff apiserver', () => {
  let server: ServerProcess;

  before(async () => {
    server = await startServer({ command: 'apiserver' });
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('is closed cleanly (the stream ends, no ERROR event) while kubectl watching the same resource sees every event', async () => {
    const k = kubectlFor(server.kubeconfig);
    await k.ok(['create', 'namespace', 'slow']);
    // the slow client: a raw watch whose response is never read until the burst is over
    const slow = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port: server.port, path: '/api/v1/namespaces/slow/configmaps?watch=1', ...tlsOf(server) }, resolve);
      req.on('error', reject);
      req.end();
    });
    slow.pause();
    // the other watcher: the real kubectl, started once it prints an object that exists already
    await k.ok(['create', 'configmap', 'marker', '-n', 'slow']);
    const watching = spawn(k.bin, ['--kubeconfig', server.kubeconfig, 'get', 'configmaps', '-n', 'slow', '--watch', '-o', 'name'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let watched = '';
    watching.stdout.setEncoding('utf8');
    watching.stdout.on('data', (c: string) => (watched += c));
    await until('kubectl --watch to start', async () => watched.includes('configmap/marker'));
    const count = 1300;
    // more than the watch cache lets one watcher lag (1,000 events), and more than the socket buffers hold
    const data = { big: 'x'.repeat(16 * 1024) };
    for (let i = 0; i < count; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, count - i) }, (_, j) => request(server, 'POST', '/api/v1/namespaces/slow/configmaps', { metadata: { name: `cm-${i + j}` }, data })),
      );
      for (const r of batch) assert.equal(r.status, 201, r.text);
    }
    const kubectlCounted = async () => (await k.ok(['get', 'configmaps', '-n', 'slow', '-o', 'name'])).trim().split('\n').length;
    assert.ok((await kubectlCounted()) >= count);
    // the slow client now reads: what was in flight, then the end of the stream
    let text = '';
    slow.setEncoding('utf8');
    slow.on('data', (c: string) => (text += c));
    const ended = new Promise<void>((resolve, reject) => {
      slow.on('end', resolve);
      slow.on('error', reject);
    });
    slow.resume();
    await ended;
    const lines = text.trim().split('\n').filter(Boolean);
    assert.ok(lines.length < count + 1, `the slow watcher was not closed: it got all ${lines.length} events`);
    for (const line of lines) assert.equal((JSON.parse(line) as { type: string }).type, 'ADDED');
    // kubectl's watch saw every object (one name per line)
    try {
      await until('kubectl --watch to print every configmap', async () => new Set(watched.trim().split('\n')).size >= count + 1);
    } finally {
      watching.kill();
    }
  });
});

describe('/readyz while etcd is unavailable', skipUnless(etcdMissingReason()), () => {
  let etcd: EtcdCluster;
  let server: ServerProcess;

  before(async () => {
    etcd = await startEtcdCluster({ size: 1 });
    server = await startServer({ command: 'apiserver', args: ['--storage', etcd.storageUrl] });
  });
  after(async () => {
    const member = etcd?.members[0]?.process;
    if (member && member.exitCode === null) member.kill('SIGCONT');
    await server?.stop();
    if (server) await removeDir(server.dataDir);
    await etcd?.stop();
  });

  it('fails while etcd does not answer and passes again once it does', async () => {
    const ready = () => request(server, 'GET', '/readyz?verbose', undefined, false);
    assert.equal((await ready()).status, 200);
    const member = etcd.members[0]!.process!;
    member.kill('SIGSTOP');
    try {
      await until('/readyz to fail', async () => (await ready()).status === 500);
      const body = (await ready()).text;
      assert.match(body, /\[-\]etcd failed: reason withheld/);
      assert.match(body, /readyz check failed/);
    } finally {
      member.kill('SIGCONT');
    }
    await until('/readyz to pass', async () => (await ready()).status === 200);
    const k = kubectlFor(server.kubeconfig);
    assert.match(await k.ok(['create', 'configmap', 'after', '-n', 'default']), /configmap\/after created/);
  });
});
