import assert from 'node:assert/strict';
import { request } from 'node:https';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, run, startServer, waitFor, type ServerProcess } from './harness.js';

/** One HTTPS request without a client certificate (anonymous unless a token is given). */
function get(port: number, path: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
    const req = request({ host: '127.0.0.1', port, path, headers, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('bearer tokens: service accounts, token file, anonymous', () => {
  let server: ServerProcess;
  let k: ReturnType<typeof kubectlFor>;
  /** kubectl authenticating with a bearer token only. */
  let as: (token: string, args: string[]) => ReturnType<typeof run>;

  before(async () => {
    const tokenFile = join(process.env.TMPDIR ?? '/tmp', `skiff-tokens-${process.pid}.csv`);
    await writeFile(tokenFile, '# static tokens\nstatic-secret-token,ops-bot,1001,"ops,auditors"\n');
    server = await startServer({ args: ['--disable', 'kubelet,scheduler', '--token-auth-file', tokenFile] });
    k = kubectlFor(server.kubeconfig);
    const ca = join(server.dataDir, 'pki', 'ca.crt');
    as = (token, args) => run(k.bin, ['--kubeconfig=/dev/null', `--server=https://127.0.0.1:${server.port}`, `--certificate-authority=${ca}`, `--token=${token}`, ...args]);
  });
  after(async () => {
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it('kubectl create token gives a token authorized as the service account', async () => {
    await k.ok(['create', 'namespace', 'team-a']);
    await k.ok(['create', 'serviceaccount', 'robot', '-n', 'team-a']);
    await k.ok(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods', '-n', 'team-a']);
    await k.ok(['create', 'rolebinding', 'robot-reads', '--role=pod-reader', '--serviceaccount=team-a:robot', '-n', 'team-a']);
    const token = (await k.ok(['create', 'token', 'robot', '-n', 'team-a'])).trim();
    assert.equal(token.split('.').length, 3, 'a JWT');

    const list = await as(token, ['get', 'pods', '-n', 'team-a']);
    assert.equal(list.code, 0, list.stderr);
    const elsewhere = await as(token, ['get', 'pods', '-n', 'default']);
    assert.equal(elsewhere.code, 1);
    assert.match(elsewhere.stderr, /Error from server \(Forbidden\): pods is forbidden: User "system:serviceaccount:team-a:robot" cannot list resource "pods" in API group "" in the namespace "default"/);
    const create = await as(token, ['run', 'x', '--image=busybox', '-n', 'team-a']);
    assert.match(create.stderr, /pods is forbidden: User "system:serviceaccount:team-a:robot" cannot create resource "pods" in API group "" in the namespace "team-a"/);

    const whoami = JSON.parse((await as(token, ['auth', 'whoami', '-o', 'json'])).stdout) as { status: { userInfo: { username: string; groups: string[] } } };
    assert.equal(whoami.status.userInfo.username, 'system:serviceaccount:team-a:robot');
    assert.deepEqual(whoami.status.userInfo.groups, ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated']);
    assert.equal((await as(token, ['auth', 'can-i', 'watch', 'pods', '-n', 'team-a'])).stdout.trim(), 'yes');

    // TokenReview says the same
    const review = JSON.parse(
      await k.ok(['create', '-o', 'json', '-f', '-'], { input: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }) }),
    ) as { status: { authenticated: boolean; user: { username: string } } };
    assert.equal(review.status.authenticated, true);
    assert.equal(review.status.user.username, 'system:serviceaccount:team-a:robot');

    // a deleted service account's tokens stop working
    await k.ok(['delete', 'serviceaccount', 'robot', '-n', 'team-a']);
    const gone = await as(token, ['get', 'pods', '-n', 'team-a']);
    assert.match(gone.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
  });

  it('the legacy token controller fills service-account-token Secrets; a token works while its Secret exists', async () => {
    await k.ok(['create', 'namespace', 'team-l']);
    await k.ok(['create', 'serviceaccount', 'builder', '-n', 'team-l']);
    await k.ok(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods', '-n', 'team-l']);
    await k.ok(['create', 'rolebinding', 'builder-reads', '--role=pod-reader', '--serviceaccount=team-l:builder', '-n', 'team-l']);
    const secret = (name: string, sa: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name, namespace: 'team-l', annotations: { 'kubernetes.io/service-account.name': sa } } });
    await k.ok(['apply', '-f', '-'], { input: secret('builder-token', 'builder') });
    const token = await waitFor('the token to be filled in', async () => {
      const r = await k.exec(['get', 'secret', 'builder-token', '-n', 'team-l', '-o', 'jsonpath={.data.token}']);
      return r.code === 0 && r.stdout ? Buffer.from(r.stdout, 'base64').toString() : undefined;
    }, 30_000);
    const filled = await k.json<{ metadata: { annotations: Record<string, string> }; data: Record<string, string> }>(['get', 'secret', 'builder-token', '-n', 'team-l', '-o', 'json']);
    const sa = await k.json<{ metadata: { uid: string } }>(['get', 'serviceaccount', 'builder', '-n', 'team-l', '-o', 'json']);
    assert.equal(filled.metadata.annotations['kubernetes.io/service-account.uid'], sa.metadata.uid);
    assert.equal(Buffer.from(filled.data.namespace, 'base64').toString(), 'team-l');
    assert.equal(Buffer.from(filled.data['ca.crt'], 'base64').toString(), await readFile(join(server.dataDir, 'pki', 'ca.crt'), 'utf8'));
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    assert.deepEqual(claims, {
      iss: 'kubernetes/serviceaccount',
      sub: 'system:serviceaccount:team-l:builder',
      'kubernetes.io/serviceaccount/namespace': 'team-l',
      'kubernetes.io/serviceaccount/secret.name': 'builder-token',
      'kubernetes.io/serviceaccount/service-account.name': 'builder',
      'kubernetes.io/serviceaccount/service-account.uid': sa.metadata.uid,
    });

    const who = JSON.parse((await as(token, ['auth', 'whoami', '-o', 'json'])).stdout) as { status: { userInfo: { username: string } } };
    assert.equal(who.status.userInfo.username, 'system:serviceaccount:team-l:builder');
    const list = await as(token, ['get', 'pods', '-n', 'team-l']);
    assert.equal(list.code, 0, list.stderr);
    assert.match((await as(token, ['get', 'secrets', '-n', 'team-l'])).stderr, /User "system:serviceaccount:team-l:builder" cannot list resource "secrets"/);

    // deleting the Secret revokes the token
    await k.ok(['delete', 'secret', 'builder-token', '-n', 'team-l']);
    assert.match((await as(token, ['get', 'pods', '-n', 'team-l'])).stderr, /error: You must be logged in to the server \(Unauthorized\)/);

    // deleting the ServiceAccount deletes its token Secrets
    await k.ok(['apply', '-f', '-'], { input: secret('builder-token-2', 'builder') });
    await waitFor('the second token', async () => (await k.exec(['get', 'secret', 'builder-token-2', '-n', 'team-l', '-o', 'jsonpath={.data.token}'])).stdout !== '', 30_000);
    await k.ok(['delete', 'serviceaccount', 'builder', '-n', 'team-l']);
    await waitFor('the token secret to go with its account', async () => /NotFound/.test((await k.exec(['get', 'secret', 'builder-token-2', '-n', 'team-l'])).stderr), 30_000);
  });

  it('refuses bad tokens with 401 and short durations with 422', async () => {
    assert.match((await as('not-a-token', ['get', 'pods'])).stderr, /Unauthorized/);
    const forged = 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVsdC5zdmMuY2x1c3Rlci5sb2NhbCJ9.c2ln';
    const r = await get(server.port, '/api/v1/namespaces', forged);
    assert.equal(r.status, 401);
    assert.deepEqual(JSON.parse(r.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    await k.ok(['create', 'serviceaccount', 'short', '-n', 'team-a']);
    const short = await k.fails(['create', 'token', 'short', '-n', 'team-a', '--duration=60s']);
    assert.match(short, /spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes/);
  });

  it('authenticates static tokens from --token-auth-file', async () => {
    const who = JSON.parse((await as('static-secret-token', ['auth', 'whoami', '-o', 'json'])).stdout) as { status: { userInfo: { username: string; uid: string; groups: string[] } } };
    assert.deepEqual(who.status.userInfo, { username: 'ops-bot', uid: '1001', groups: ['ops', 'auditors', 'system:authenticated'] });
    assert.match((await as('static-secret-token', ['get', 'nodes'])).stderr, /User "ops-bot" cannot list resource "nodes"/);
  });

  it('anonymous requests may read the public paths only; the issuer publishes its keys to service accounts', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) assert.equal((await get(server.port, path)).status, 200, path);
    const pods = await get(server.port, '/api/v1/pods');
    assert.equal(pods.status, 403);
    assert.match(JSON.parse(pods.body).message, /^pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope$/);
    assert.equal((await get(server.port, '/apis')).status, 403);

    await k.ok(['create', 'serviceaccount', 'reader', '-n', 'team-a']);
    const token = (await k.ok(['create', 'token', 'reader', '-n', 'team-a'])).trim();
    const config = await get(server.port, '/.well-known/openid-configuration', token);
    assert.equal(config.status, 200);
    const doc = JSON.parse(config.body) as { issuer: string; jwks_uri: string };
    assert.equal(doc.issuer, 'https://kubernetes.default.svc.cluster.local');
    assert.equal(doc.jwks_uri, 'https://kubernetes.default.svc.cluster.local/openid/v1/jwks');
    const keys = JSON.parse((await get(server.port, '/openid/v1/jwks', token)).body) as { keys: { kty: string; alg: string; kid: string }[] };
    assert.equal(keys.keys[0].kty, 'RSA');
    const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()) as { kid: string };
    assert.equal(keys.keys[0].kid, header.kid);
    assert.equal((await get(server.port, '/openid/v1/jwks')).status, 403, 'anonymous may not read the keys');
  });
});
