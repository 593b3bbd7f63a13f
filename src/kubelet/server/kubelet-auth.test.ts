import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { FakeClock } from '../../base/fake-clock.js';
import type { Client } from '../../client/rest/index.js';
import { KubeletAuth, kubeletForbiddenMessage, kubeletRequestAttributes } from './kubelet-auth.js';

describe('kubelet request attributes (upstream GetRequestAttributes)', () => {
  const cases: [string, string, string, string][] = [
    ['GET', '/pods', 'get', 'proxy'],
    ['GET', '/containerLogs/ns/p/c', 'get', 'proxy'],
    ['POST', '/exec/ns/p/c', 'create', 'proxy'],
    ['GET', '/stats/summary', 'get', 'stats'],
    ['GET', '/stats', 'get', 'stats'],
    ['GET', '/statsx', 'get', 'proxy'],
    ['GET', '/metrics/cadvisor', 'get', 'metrics'],
    ['GET', '/logs/syslog', 'get', 'log'],
    ['POST', '/checkpoint/ns/p/c', 'create', 'checkpoint'],
    ['PUT', '/healthz', 'update', 'proxy'],
  ];
  for (const [method, path, verb, sub] of cases) {
    it(`${method} ${path} is ${verb} nodes/${sub}`, () => assert.deepEqual(kubeletRequestAttributes('n1', method, path), { verb, resource: 'nodes', subresource: sub, name: 'n1', path }));
  }
  it("words a refusal as upstream's kubelet", () => {
    assert.equal(kubeletForbiddenMessage({ username: 'bob', groups: [] }, kubeletRequestAttributes('n1', 'GET', '/stats/summary')), 'Forbidden (user=bob, verb=get, resource=nodes, subresource=stats)');
  });
});

/** A client that answers reviews from tables and counts the calls. */
function reviewClient(tokens: Record<string, string>, allowed: (user: string, sub: string) => boolean) {
  const calls: string[] = [];
  const client = {
    resource: (ref: { resource: string }) => ({
      async create(obj: { spec: { token?: string; user?: string; resourceAttributes?: { subresource?: string } } }) {
        calls.push(ref.resource);
        if (ref.resource === 'tokenreviews') {
          const name = tokens[obj.spec.token ?? ''];
          return { ...obj, status: name ? { authenticated: true, user: { username: name, groups: ['system:authenticated'] } } : { authenticated: false } };
        }
        return { ...obj, status: { allowed: allowed(obj.spec.user ?? '', obj.spec.resourceAttributes?.subresource ?? '') } };
      },
    }),
  } as unknown as Client;
  return { client, calls };
}

function request(headers: Record<string, string>, cert?: { CN: string; O?: string | string[] }): IncomingMessage {
  const socket = { authorized: Boolean(cert), getPeerCertificate: () => (cert ? { subject: cert } : {}) };
  return { headers, socket } as unknown as IncomingMessage;
}

describe('KubeletAuth', () => {
  it('names a certificate user by CN and O; refuses a request without credentials', async () => {
    const { client, calls } = reviewClient({}, () => true);
    const auth = new KubeletAuth({ client, nodeName: 'n1' });
    assert.deepEqual(await auth.authenticate(request({}, { CN: 'kube-apiserver', O: ['system:masters'] })), { username: 'kube-apiserver', groups: ['system:masters', 'system:authenticated'] });
    assert.equal(await auth.authenticate(request({})), undefined);
    assert.equal(await auth.authenticate(request({ authorization: 'Basic eDp5' })), undefined);
    assert.deepEqual(calls, []);
  });

  it('reviews bearer tokens and believes the answer for the cache TTL', async () => {
    const clock = new FakeClock();
    const { client, calls } = reviewClient({ good: 'system:serviceaccount:a:b' }, () => true);
    const auth = new KubeletAuth({ client, nodeName: 'n1', clock, tokenCacheMs: 120_000 });
    assert.equal((await auth.authenticate(request({ authorization: 'Bearer good' })))?.username, 'system:serviceaccount:a:b');
    assert.equal(await auth.authenticate(request({ authorization: 'Bearer bad' })), undefined);
    await auth.authenticate(request({ authorization: 'Bearer good' }));
    await auth.authenticate(request({ authorization: 'Bearer bad' }));
    assert.equal(calls.length, 2);
    await clock.advance(120_001);
    await auth.authenticate(request({ authorization: 'Bearer good' }));
    assert.equal(calls.length, 3);
  });

  it('asks a SubjectAccessReview and caches allowed answers longer than denied ones', async () => {
    const clock = new FakeClock();
    const { client, calls } = reviewClient({}, (user, sub) => user === 'admin' || sub === 'stats');
    const auth = new KubeletAuth({ client, nodeName: 'n1', clock, authorizedCacheMs: 300_000, unauthorizedCacheMs: 30_000 });
    const admin = { username: 'admin', groups: [] };
    const bob = { username: 'bob', groups: [] };
    assert.equal((await auth.authorize(admin, kubeletRequestAttributes('n1', 'GET', '/pods'))).allowed, true);
    assert.equal((await auth.authorize(bob, kubeletRequestAttributes('n1', 'GET', '/pods'))).allowed, false);
    assert.equal((await auth.authorize(bob, kubeletRequestAttributes('n1', 'GET', '/stats/summary'))).allowed, true);
    assert.equal(calls.length, 3);
    await clock.advance(30_001);
    await auth.authorize(admin, kubeletRequestAttributes('n1', 'GET', '/pods'));
    assert.equal(calls.length, 3, 'allowed: still cached');
    await auth.authorize(bob, kubeletRequestAttributes('n1', 'GET', '/pods'));
    assert.equal(calls.length, 4, 'denied: asked again');
  });
});
