import assert from 'node:assert/strict';
import { once } from 'node:events';
import https from 'node:https';
import tls from 'node:tls';
import { test } from 'node:test';
import { PublicInfoAuthorizer } from '../authorization/public-info.js';
import { AlwaysAllowAuthenticated } from '../authorization/always-allow.js';
import type { Attributes, Authorizer, AuthorizationResult } from '../authorization/authorizer.js';
import { startInProcessServer, type InProcessServer } from '../in-process-server.test-util.js';
import type { ServingLimits } from './serving-limits.js';

/** Holds every request of user "slow" in authorization (after the in-flight limit took its slot) until opened. */
class GateAuthorizer implements Authorizer {
  readonly name = 'gate';
  waiting = 0;
  private open!: () => void;
  private gate = new Promise<void>((resolve) => (this.open = resolve));
  async authorize(attrs: Attributes): Promise<AuthorizationResult> {
    if (attrs.user.name === 'slow') {
      this.waiting++;
      await this.gate;
    }
    return { decision: 'NoOpinion', reason: '' };
  }
  release(): void {
    this.open();
  }
}

async function until(what: string, cond: () => boolean | Promise<boolean>, deadlineMs = 10_000): Promise<void> {
  const end = performance.now() + deadlineMs;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function withServer(limits: Partial<ServingLimits>, fn: (s: InProcessServer, gate: GateAuthorizer) => Promise<void>) {
  const gate = new GateAuthorizer();
  // the max-in-flight filter (APF off); APF has its own tests in ../flowcontrol/
  const s = await startInProcessServer({ limits: { priorityAndFairness: false, ...limits }, pipeline: { authorizers: () => [gate, new PublicInfoAuthorizer(), new AlwaysAllowAuthenticated()] } });
  try {
    await fn(s, gate);
  } finally {
    gate.release();
    await s.stop();
  }
}

test('a user past the in-flight limit gets 429 with Retry-After while system:masters is still served', async () => {
  await withServer({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 }, async (s, gate) => {
    const slow = await s.clientCertificate('slow');
    const other = await s.clientCertificate('jane');
    const held = [s.request('GET', '/api/v1/namespaces', { client: slow }), s.request('GET', '/api/v1/configmaps', { client: slow })];
    await until('two held reads', () => gate.waiting === 2);
    const refused = await s.request('GET', '/api/v1/namespaces/default', { client: other });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '1');
    assert.deepEqual(refused.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests, please try again later.',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
      code: 429,
    });
    // mutating requests have their own slots
    const create = await s.request('POST', '/api/v1/namespaces/default/configmaps', { client: other, body: { metadata: { name: 'c' } } });
    assert.equal(create.status, 201);
    // the admin is in system:masters: never refused
    assert.equal((await s.request('GET', '/api/v1/nodes')).status, 200);
    // health probes are exempt
    assert.equal((await s.request('GET', '/readyz', { client: other })).status, 200);
    assert.match(await s.server.metrics.render(), /apiserver_dropped_requests_total\{request_kind="readOnly"\} 1/);
    gate.release();
    for (const r of await Promise.all(held)) assert.equal(r.status, 200);
    // the slots are free again
    assert.equal((await s.request('GET', '/api/v1/namespaces/default', { client: other })).status, 200);
  });
});

test('a request running past --request-timeout gets upstream 504 Status; its slot is held until it really ends', async () => {
  await withServer({ requestTimeoutMs: 200, maxRequestsInflight: 1 }, async (s, gate) => {
    const slow = await s.clientCertificate('slow');
    const other = await s.clientCertificate('jane');
    const reply = await s.request('GET', '/api/v1/namespaces', { client: slow });
    assert.equal(reply.status, 504);
    assert.deepEqual(reply.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within the allotted timeout',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    assert.equal((await s.request('GET', '/api/v1/namespaces', { client: other })).status, 429);
    gate.release();
    await until('the slot to be released', async () => (await s.request('GET', '/api/v1/namespaces', { client: other })).status === 200);
    // watches are long-running: no timeout
    const watch = await openWatch(s, other);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(watch.destroyed, false);
    watch.destroy();
  });
});

function openWatch(s: InProcessServer, client: { certPem: string; keyPem: string }): Promise<import('node:http').IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      { host: '127.0.0.1', port: s.port, path: '/api/v1/namespaces/default/configmaps?watch=1', ca: s.tlsOptions().ca, cert: client.certPem, key: client.keyPem, agent: false },
      resolve,
    );
    req.on('error', reject);
  });
}

test('open watches are limited (429 past --max-watches) and free their slot when closed', async () => {
  await withServer({ maxWatches: 2 }, async (s) => {
    const jane = await s.clientCertificate('jane');
    const w1 = await openWatch(s, jane);
    const w2 = await openWatch(s, jane);
    assert.equal(w1.statusCode, 200);
    assert.equal(w2.statusCode, 200);
    const refused = await openWatch(s, jane);
    assert.equal(refused.statusCode, 429);
    refused.resume();
    const admin = await s.request('GET', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1');
    assert.equal(admin.status, 200);
    w1.destroy();
    await until('a free watch slot', async () => {
      const w = await openWatch(s, jane);
      w.destroy();
      return w.statusCode === 200;
    });
    w2.destroy();
  });
});

test('a body over --max-request-bytes is refused with upstream 413 text', async () => {
  await withServer({ maxRequestBytes: 1000 }, async (s) => {
    const reply = await s.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'big' }, data: { x: 'y'.repeat(2000) } } });
    assert.equal(reply.status, 413);
    assert.equal(reply.json().message, 'Request entity too large: limit is 1000');
    assert.equal(reply.json().reason, 'RequestEntityTooLarge');
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/configmaps/big')).status, 404);
  });
});

test('a client trickling its headers one byte at a time is cut off', async () => {
  await withServer({ headersTimeoutMs: 500 }, async (s) => {
    const socket = tls.connect({ host: '127.0.0.1', port: s.port, ...s.tlsOptions() });
    await once(socket, 'secureConnect');
    const closed = once(socket, 'close');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('error', () => {});
    const request = 'GET /version HTTP/1.1\r\nHost: skiff\r\nX-Padding: ' + 'a'.repeat(10_000);
    let sent = 0;
    const trickle = setInterval(() => {
      if (socket.destroyed || sent >= request.length) return;
      socket.write(request[sent++]);
    }, 50);
    try {
      await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('the slow client was not cut off')), 10_000))]);
    } finally {
      clearInterval(trickle);
    }
    assert.ok(sent < request.length, 'cut off before it finished sending');
    assert.match(received, /^HTTP\/1.1 408/);
    // the server is fine
    assert.equal((await s.request('GET', '/version')).status, 200);
  });
});
