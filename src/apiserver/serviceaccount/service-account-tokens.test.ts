import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServiceAccountKey } from './signing-key.js';
import { InvalidTokenError, ServiceAccountTokens } from './service-account-tokens.js';
import { FakeClock } from '../../base/fake-clock.js';

test('bound tokens verify for their audience until they expire; legacy tokens verify; others do not', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sa-key-'));
  try {
    const key = await ensureServiceAccountKey(dir);
    assert.equal((await ensureServiceAccountKey(dir)).keyId, key.keyId, 'the key is kept');
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const tokens = new ServiceAccountTokens(key, 'https://issuer', ['https://issuer'], clock);
    const claims = { namespace: 'ns', serviceAccount: { name: 'sa', uid: 'u1' }, pod: { name: 'p', uid: 'pu' } };
    const { token, expiresAt } = await tokens.issueBound(claims, ['https://issuer'], 600);
    assert.equal(expiresAt.toISOString(), '2026-01-01T00:10:00.000Z');
    const v = await tokens.verify(token);
    assert.deepEqual([v.namespace, v.name, v.uid, v.pod?.name], ['ns', 'sa', 'u1', 'p']);
    await assert.rejects(tokens.verify(token, ['other']), InvalidTokenError);
    clock.set('2026-01-01T00:12:00Z');
    await assert.rejects(tokens.verify(token), InvalidTokenError, 'expired');
    const legacy = await tokens.issueLegacy('ns', 'sa', 'u1', 'sa-token');
    assert.equal((await tokens.verify(legacy)).secretName, 'sa-token');
    await mkdir(join(dir, 'other'));
    const other = new ServiceAccountTokens(await ensureServiceAccountKey(join(dir, 'other')), 'https://issuer', ['https://issuer'], clock);
    await assert.rejects(other.verify(legacy), InvalidTokenError, 'signed by another key');
    assert.equal(ServiceAccountTokens.ours('a.b', 'https://issuer'), false);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
