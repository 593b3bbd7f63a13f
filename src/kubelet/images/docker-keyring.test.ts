import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Secret } from 'kubernetes-types/core/v1.js';
import { DockerKeyring } from './docker-keyring.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function dockerConfigJson(auths: Record<string, object>): Secret {
  return { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64(JSON.stringify({ auths })) } };
}

test('pull secrets match by registry host and repository path, most specific first', () => {
  const ring = new DockerKeyring([
    dockerConfigJson({
      'https://index.docker.io/v1/': { auth: b64('hub:hubpw') },
      '127.0.0.1:5000': { username: 'local', password: 'pw' },
      '127.0.0.1:5000/team': { username: 'team', password: 'teampw' },
      '*.example.com': { username: 'glob', password: 'g' },
    }),
    { type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64(JSON.stringify({ 'quay.io': { auth: b64('q:qpw') } })) } },
  ]);
  assert.deepEqual(ring.lookup('busybox'), [{ username: 'hub', password: 'hubpw' }]);
  assert.deepEqual(ring.lookup('127.0.0.1:5000/team/app:1'), [{ username: 'team', password: 'teampw' }, { username: 'local', password: 'pw' }]);
  assert.deepEqual(ring.lookup('127.0.0.1:5000/other/app'), [{ username: 'local', password: 'pw' }]);
  assert.deepEqual(ring.lookup('127.0.0.1:5001/app'), []);
  assert.deepEqual(ring.lookup('reg.example.com/app'), [{ username: 'glob', password: 'g' }]);
  assert.deepEqual(ring.lookup('a.b.example.com/app'), []);
  assert.deepEqual(ring.lookup('quay.io/x/y'), [{ username: 'q', password: 'qpw' }]);
});

test('a malformed secret gives no credentials', () => {
  const ring = new DockerKeyring([{ data: { '.dockerconfigjson': b64('{not json') } }]);
  assert.deepEqual(ring.lookup('busybox'), []);
});
