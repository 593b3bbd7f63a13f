import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { SECRETS, SERVICE_ACCOUNTS } from '../../api/resource-refs.js';
import { Lister } from '../../client/cache/lister.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import { serviceAccountKeyId } from '../../machinery/legacy-service-account-token.js';
import { createLogger } from '../../machinery/logger.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { tokenSecretsOf, TokenReconciler } from './token-reconciler.js';

let api: TestApiServer;
const secretIndex = new MapIndexer<Secret>();
const saIndex = new MapIndexer<ServiceAccount>();
const signal = new AbortController().signal;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

before(async () => {
  api = await startTestApiServer({ namespaces: ['app'] });
});
after(() => api.stop());

const secrets = () => api.client.resource<Secret>(SECRETS).namespace('app');
const accounts = () => api.client.resource<ServiceAccount>(SERVICE_ACCOUNTS).namespace('app');
const text = (v: string | undefined) => Buffer.from(v ?? '', 'base64').toString();

async function syncCache(): Promise<void> {
  secretIndex.replace((await secrets().list()).items, '');
  saIndex.replace((await accounts().list()).items, '');
}

const reconciler = () =>
  new TokenReconciler({
    client: api.client,
    secrets: new Lister(secretIndex),
    serviceAccounts: new Lister(saIndex),
    privateKey,
    rootCa: async () => CA,
    logger: createLogger('test', {}, () => undefined),
  });

const tokenSecret = (name: string, sa: string): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, annotations: { 'kubernetes.io/service-account.name': sa } }, type: 'kubernetes.io/service-account-token' });

test('a token secret gets a legacy JWT, ca.crt, namespace and the account uid; a second pass changes nothing', async () => {
  const sa = await accounts().create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } });
  await secrets().create(tokenSecret('builder-token', 'builder'));
  await syncCache();
  await reconciler().reconcile('app/builder-token', signal);
  const s = await secrets().get('builder-token');
  assert.equal(s.metadata?.annotations?.['kubernetes.io/service-account.uid'], sa.metadata?.uid);
  assert.equal(text(s.data?.['ca.crt']), CA);
  assert.equal(text(s.data?.namespace), 'app');
  const token = text(s.data?.token);
  const { payload } = await jwtVerify(token, publicKey, { algorithms: ['RS256'], issuer: 'kubernetes/serviceaccount' });
  assert.deepEqual(
    { ...payload },
    {
      iss: 'kubernetes/serviceaccount',
      sub: 'system:serviceaccount:app:builder',
      'kubernetes.io/serviceaccount/namespace': 'app',
      'kubernetes.io/serviceaccount/secret.name': 'builder-token',
      'kubernetes.io/serviceaccount/service-account.name': 'builder',
      'kubernetes.io/serviceaccount/service-account.uid': sa.metadata?.uid,
    },
  );
  assert.equal(decodeProtectedHeader(token).kid, serviceAccountKeyId(publicKey));
  assert.equal(decodeJwt(token).exp, undefined, 'legacy tokens do not expire');

  await syncCache();
  await reconciler().reconcile('app/builder-token', signal);
  const again = await secrets().get('builder-token');
  assert.equal(again.metadata?.resourceVersion, s.metadata?.resourceVersion);
});

test('a token already in the secret is kept; a lost ca.crt comes back', async () => {
  await accounts().create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'keeper' } });
  await secrets().create({ ...tokenSecret('keeper-token', 'keeper'), data: { token: Buffer.from('my-own').toString('base64') } });
  await syncCache();
  await reconciler().reconcile('app/keeper-token', signal);
  const s = await secrets().get('keeper-token');
  assert.equal(text(s.data?.token), 'my-own');
  assert.equal(text(s.data?.['ca.crt']), CA);
});

test('a secret for a missing account, or for an account of another uid, is deleted; deleting an account deletes its tokens', async () => {
  await secrets().create(tokenSecret('ghost-token', 'ghost'));
  await syncCache();
  await reconciler().reconcile('app/ghost-token', signal);
  await assert.rejects(secrets().get('ghost-token'), isNotFound);

  const sa = await accounts().create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'short-lived' } });
  await secrets().create(tokenSecret('short-lived-token', 'short-lived'));
  await secrets().create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unrelated' }, stringData: { a: 'b' } });
  await syncCache();
  await reconciler().reconcile('app/short-lived-token', signal);
  assert.ok(text((await secrets().get('short-lived-token')).data?.token));
  assert.deepEqual(tokenSecretsOf(new Lister(secretIndex), sa), ['app/short-lived-token']);

  await accounts().delete('short-lived');
  await syncCache();
  await reconciler().reconcile('app/short-lived-token', signal);
  await assert.rejects(secrets().get('short-lived-token'), isNotFound);
  assert.ok(await secrets().get('unrelated'));

  // same name, new account: the old uid's secret goes
  await accounts().create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reborn' } });
  await secrets().create(tokenSecret('reborn-token', 'reborn'));
  await syncCache();
  await reconciler().reconcile('app/reborn-token', signal);
  await accounts().delete('reborn');
  await accounts().create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reborn' } });
  await syncCache();
  await reconciler().reconcile('app/reborn-token', signal);
  await assert.rejects(secrets().get('reborn-token'), isNotFound);
});

test('other secret types are left alone', async () => {
  await secrets().create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'opaque', annotations: { 'kubernetes.io/service-account.name': 'ghost' } }, stringData: { a: 'b' } });
  await syncCache();
  await reconciler().reconcile('app/opaque', signal);
  assert.equal(text((await secrets().get('opaque')).data?.a), 'b');
});
