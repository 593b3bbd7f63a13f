import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueCertificate } from '../pki/issue-certificate.js';
import { startInProcessServer, type InProcessServer } from '../in-process-server.test-util.js';

describe('request-header authentication', () => {
  let api: InProcessServer;
  before(async () => {
    api = await startInProcessServer({ frontProxy: true });
  });
  after(() => api.stop());

  const whoami = async (client: { certPem: string; keyPem: string } | null, headers: Record<string, string | string[]> = {}) => {
    const r = await api.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, client, headers });
    return { status: r.status, user: (r.json().status as { userInfo?: Record<string, unknown> } | undefined)?.userInfo };
  };

  it('believes X-Remote-User, -Group and -Extra- from the front-proxy client certificate', async () => {
    const r = await whoami(api.pki.frontProxyClient, { 'X-Remote-User': 'jane', 'X-Remote-Group': ['devs', 'ops'], 'X-Remote-Extra-Scopes': 'a', 'X-Remote-Extra-Acme.com%2Fteam': 'blue' });
    assert.equal(r.status, 201);
    assert.equal(r.user?.username, 'jane');
    assert.deepEqual(r.user?.groups, ['devs', 'ops', 'system:authenticated']);
    assert.deepEqual(r.user?.extra, { scopes: ['a'], 'acme.com/team': ['blue'] });
  });

  it('ignores the headers from a client certificate of the cluster CA', async () => {
    const r = await whoami(await api.clientCertificate('bob'), { 'X-Remote-User': 'jane' });
    assert.equal(r.status, 201);
    assert.equal(r.user?.username, 'bob');
  });

  it('refuses a front-proxy certificate whose name is not allowed', async () => {
    const other = await issueCertificate(api.pki.frontProxyCa, { commonName: 'not-the-proxy', usages: ['clientAuth'] });
    assert.equal((await whoami(other, { 'X-Remote-User': 'jane' })).status, 401);
  });

  it('does not take a front-proxy certificate without a user header as a user', async () => {
    assert.equal((await whoami(api.pki.frontProxyClient)).status, 401);
  });

  it('publishes kube-system/extension-apiserver-authentication', async () => {
    const cm = (await api.request('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')).json() as { data: Record<string, string> };
    assert.equal(cm.data['client-ca-file'], api.pki.ca.certPem);
    assert.equal(cm.data['requestheader-client-ca-file'], api.pki.frontProxyCa.certPem);
    assert.equal(cm.data['requestheader-allowed-names'], '["front-proxy-client"]');
    assert.equal(cm.data['requestheader-username-headers'], '["X-Remote-User"]');
    assert.equal(cm.data['requestheader-group-headers'], '["X-Remote-Group"]');
    assert.equal(cm.data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
  });
});
