import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ProbeWorker } from './probe-worker.js';
import { runProbe, type ProbeResult } from './run-probe.js';

const target = { host: '127.0.0.1', container: { name: 'c', ports: [{ name: 'web', containerPort: 1 }] }, exec: async () => ({ exitCode: 0, stdout: '', stderr: '' }) };

test('readiness flips after successThreshold successes and failureThreshold failures', async () => {
  const results: boolean[] = [];
  let next: ProbeResult = { ok: true };
  const w = new ProbeWorker({ type: 'readiness', probe: { successThreshold: 2, failureThreshold: 2 }, target, startedAt: new Date(), onChange: (ok) => results.push(ok), run: async () => next });
  assert.equal(w.ok, false);
  await w.probeOnce();
  assert.equal(w.ok, false);
  await w.probeOnce();
  assert.equal(w.ok, true);
  next = { ok: false };
  await w.probeOnce();
  assert.equal(w.ok, true);
  await w.probeOnce();
  assert.equal(w.ok, false);
  assert.deepEqual(results, [true, false]);
});

test('httpGet: 2xx/3xx succeed, others fail; named ports resolve; tcpSocket needs a listener', async () => {
  const server = http.createServer((req, res) => {
    res.writeHead(req.url === '/ok' ? 200 : 500);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const t = { ...target, container: { name: 'c', ports: [{ name: 'web', containerPort: port }] } };
  assert.equal((await runProbe({ httpGet: { path: '/ok', port: 'web' } }, t)).ok, true);
  const bad = await runProbe({ httpGet: { path: '/bad', port } }, t);
  assert.equal(bad.ok, false);
  assert.equal(bad.message, 'HTTP probe failed with statuscode: 500');
  assert.equal((await runProbe({ tcpSocket: { port } }, t)).ok, true);
  server.close();
  assert.equal((await runProbe({ tcpSocket: { port } }, t)).ok, false);
  assert.equal((await runProbe({ exec: { command: ['x'] } }, { ...t, exec: async () => ({ exitCode: 1, stdout: 'no', stderr: '' }) })).ok, false);
});
