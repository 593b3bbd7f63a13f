import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { x509 as loadX509 } from '../../api/x509.js';
import { FakeClock } from '../../base/fake-clock.js';
import { waitFor } from '../../client/testing/wait-for.js';
import { createLogger } from '../../machinery/logger.js';
import { ClientCertificateManager, readCertificateKeyFile, type CertificateRequester } from './certificate-manager.js';
import { newNodeCertificateRequest } from './node-csr.js';

const x509 = loadX509();
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const dir = mkdtempSync(join(tmpdir(), 'skiff-certmgr-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ca = await (async () => {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({ name: 'CN=test-ca', keys, signingAlgorithm: ALG, notBefore: new Date('2020-01-01'), notAfter: new Date('2030-01-01'), serialNumber: '01' });
  return { keys, cert };
})();

let serial = 16;
/** Signs a CSR with the test CA, valid for `lifeMs` from `from`. */
async function sign(csrPem: string, from: number, lifeMs: number): Promise<string> {
  const csr = new x509.Pkcs10CertificateRequest(csrPem);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    subject: csr.subjectName,
    issuer: ca.cert.subjectName,
    notBefore: new Date(from),
    notAfter: new Date(from + lifeMs),
    publicKey: csr.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: ALG,
  });
  return cert.toString('pem');
}

async function initialPair(clock: FakeClock, lifeMs: number): Promise<{ certPem: string; keyPem: string }> {
  const { csrPem, keyPem } = await newNodeCertificateRequest('worker-1');
  return { certPem: await sign(csrPem, clock.now(), lifeMs), keyPem };
}

function logs(): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: createLogger('kubelet', {}, (l) => lines.push(JSON.parse(l) as Record<string, unknown>)) };
}

test('renews at the jittered deadline through a CSR, writes the pair and serves the new certificate', async () => {
  const clock = new FakeClock('2025-01-01T00:00:00Z');
  const initial = await initialPair(clock, 100_000);
  const certPath = join(dir, 'a.pem');
  const csrs: string[] = [];
  const requester: CertificateRequester = async (csrPem) => {
    csrs.push(csrPem);
    return { name: `csr-${csrs.length}`, certPem: await sign(csrPem, clock.now(), 100_000) };
  };
  const { lines, logger } = logs();
  const m = new ClientCertificateManager({ nodeName: 'worker-1', initial, certPath, logger, clock, random: () => 0.5, requester });
  assert.equal(m.rotationDeadline(), clock.now() + 80_000);
  const firstSerial = m.certificate().serial;
  const stop = new AbortController();
  const running = m.run(undefined, stop.signal);
  try {
    await clock.advance(79_000);
    assert.equal(clock.pendingTimers(), 1, 'still waiting for the deadline');
    assert.equal(csrs.length, 0, 'nothing is sent before the deadline');
    assert.equal(m.current().cert, initial.certPem);

    await clock.advance(1000);
    await waitFor(() => m.certificate().serial !== firstSerial, 'the certificate to rotate');
    assert.equal(csrs.length, 1);
    const csr = new x509.Pkcs10CertificateRequest(csrs[0]);
    assert.equal(csr.subject, 'O=system:nodes, CN=system:node:worker-1');
    const served = m.current();
    assert.notEqual(served.key, initial.keyPem, 'a new key for every certificate');
    assert.deepEqual(await readCertificateKeyFile(certPath), { certPem: `${served.cert.toString().trim()}\n`, keyPem: `${served.key.toString().trim()}\n` });
    // the next deadline counts from the new certificate
    assert.equal(m.rotationDeadline(), clock.now() + 80_000);
    const rotated = lines.find((l) => l.msg === 'rotated the client certificate');
    assert.ok(rotated, JSON.stringify(lines));
    assert.equal(rotated.previousSerial, firstSerial);
    assert.equal(rotated.serial, m.certificate().serial);
    assert.equal(rotated.csr, 'csr-1');
  } finally {
    stop.abort();
    await running;
  }
});

test('a failed CSR is retried with backoff, and an answer for another key is refused', async () => {
  const clock = new FakeClock('2025-01-01T00:00:00Z');
  const initial = await initialPair(clock, 10_000);
  let calls = 0;
  const requester: CertificateRequester = async (csrPem) => {
    calls++;
    if (calls === 1) throw new Error('certificate signing request csr-1 is denied: NotMine');
    if (calls === 2) {
      const other = await newNodeCertificateRequest('worker-1');
      return { name: 'csr-2', certPem: await sign(other.csrPem, clock.now(), 10_000) };
    }
    return { name: `csr-${calls}`, certPem: await sign(csrPem, clock.now(), 10_000) };
  };
  const { lines, logger } = logs();
  const m = new ClientCertificateManager({ nodeName: 'worker-1', initial, certPath: join(dir, 'b.pem'), logger, clock, random: () => 0, requester });
  const first = m.certificate().serial;
  const stop = new AbortController();
  const running = m.run(undefined, stop.signal);
  try {
    await clock.advance(7000);
    await waitFor(() => calls === 1 && clock.pendingTimers() === 1, 'the first failure');
    assert.equal(m.certificate().serial, first);
    await clock.advance(2000);
    await waitFor(() => calls === 2 && clock.pendingTimers() === 1, 'the second failure');
    assert.equal(m.certificate().serial, first, 'a certificate for another key is not used');
    const errors = lines.filter((l) => l.msg === 'failed to rotate the client certificate, will retry');
    assert.deepEqual(errors.map((e) => e.retryInSeconds), [2, 4]);
    assert.match(String(errors[1].err), /answered with a certificate for another key/);
    await clock.advance(4000);
    await waitFor(() => m.certificate().serial !== first, 'the third try to succeed');
    assert.equal(calls, 3);
  } finally {
    stop.abort();
    await running;
  }
});

test('readCertificateKeyFile reads the pair back and tolerates a missing file', async () => {
  assert.equal(await readCertificateKeyFile(join(dir, 'missing.pem')), undefined);
});
