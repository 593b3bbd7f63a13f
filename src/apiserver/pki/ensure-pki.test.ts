import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePki, issueClientCertificate } from './ensure-pki.js';
import { writeKubeconfig } from './kubeconfig.js';
import type { Pki } from './pki.js';

interface Seen {
  authorized: boolean;
  cn?: string | string[];
  o?: string | string[];
}

/** An HTTPS server that asks for client certificates and records what it saw. */
async function startServer(pki: Pki): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer(
    { cert: pki.serving.certPem, key: pki.serving.keyPem, ca: pki.ca.certPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      const peer = socket.getPeerCertificate();
      seen.push({ authorized: socket.authorized, cn: peer.subject?.CN, o: peer.subject?.O });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

function get(port: number, pki: Pki, client?: { certPem: string; keyPem: string }): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/x', ca: pki.ca.certPem, cert: client?.certPem, key: client?.keyPem },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('generates a CA, serving and admin certificates that authenticate over TLS', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'skiff-pki-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const pki = await ensurePki(dataDir, { hosts: ['skiff.example', '10.0.0.1'] });

  for (const f of ['ca.key', 'apiserver.key', 'admin.key']) {
    assert.equal((await stat(join(dataDir, 'pki', f))).mode & 0o777, 0o600, f);
  }
  const serving = new X509Certificate(pki.serving.certPem);
  for (const name of ['DNS:localhost', 'IP Address:127.0.0.1', 'DNS:skiff.example', 'IP Address:10.0.0.1']) {
    assert.ok(serving.subjectAltName?.includes(name), `${name} in ${serving.subjectAltName}`);
  }
  const ca = new X509Certificate(pki.ca.certPem);
  assert.ok(serving.checkIssued(ca) && serving.verify(ca.publicKey));
  assert.equal(ca.ca, true);
  assert.equal(serving.ca, false);
  const years = (d: string) => (Date.parse(d) - Date.now()) / (365 * 24 * 3600 * 1000);
  assert.ok(years(ca.validTo) > 9.9 && years(serving.validTo) > 0.99 && years(serving.validTo) < 1.01);

  const { server, port, seen } = await startServer(pki);
  t.after(() => new Promise((resolve) => server.close(resolve)));

  assert.equal((await get(port, pki, pki.admin)).statusCode, 200);
  assert.deepEqual(seen.at(-1), { authorized: true, cn: 'skiff-admin', o: 'system:masters' });

  assert.equal((await get(port, pki)).statusCode, 200);
  assert.equal(seen.at(-1)?.authorized, false);

  const kubelet = await issueClientCertificate(pki, { commonName: 'system:node:n1', organizations: ['system:nodes', 'extra'] });
  await get(port, pki, kubelet);
  assert.deepEqual(seen.at(-1), { authorized: true, cn: 'system:node:n1', o: ['system:nodes', 'extra'] });

  if (existsSync('/usr/bin/kubectl')) {
    const kubeconfig = join(dataDir, 'kube', 'config');
    await writeKubeconfig(kubeconfig, {
      server: `https://127.0.0.1:${port}`,
      caPem: pki.ca.certPem,
      certPem: pki.admin.certPem,
      keyPem: pki.admin.keyPem,
      user: 'skiff-admin',
      cluster: 'skiff',
      context: 'skiff',
    });
    assert.equal((await stat(kubeconfig)).mode & 0o777, 0o600);
    const before = seen.length;
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        '/usr/bin/kubectl',
        ['--kubeconfig', kubeconfig, 'get', '--raw', '/x'],
        { timeout: 30_000, env: { ...process.env, HOME: dataDir } },
        (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
      );
    });
    assert.equal(stdout.trim(), '{}');
    assert.deepEqual(seen.slice(before).at(-1), { authorized: true, cn: 'skiff-admin', o: 'system:masters' });
    t.diagnostic('kubectl (Go crypto/tls) accepted the CA, serving and client certificates');
  } else {
    t.diagnostic('kubectl not installed; Go interoperability not checked');
  }
});

test('reuses files on later starts and re-issues the serving certificate for new hosts', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'skiff-pki-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const first = await ensurePki(dataDir, { hosts: [] });
  const second = await ensurePki(dataDir, { hosts: ['::1', '127.0.0.1'] });
  assert.deepEqual(second, first);

  const third = await ensurePki(dataDir, { hosts: ['new.example', '192.168.1.5'] });
  assert.equal(third.ca.certPem, first.ca.certPem);
  assert.equal(third.admin.certPem, first.admin.certPem);
  assert.notEqual(third.serving.certPem, first.serving.certPem);
  assert.ok(new X509Certificate(third.serving.certPem).subjectAltName?.includes('DNS:new.example'));
  assert.equal(await readFile(join(dataDir, 'pki', 'apiserver.crt'), 'utf8'), third.serving.certPem);
});
