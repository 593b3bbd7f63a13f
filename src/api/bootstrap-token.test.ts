import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Secret } from 'kubernetes-types/core/v1.js';
import { bootstrapTokenExpired, bootstrapTokenGroups, bootstrapTokenSecret, generateBootstrapToken, parseBootstrapToken } from './bootstrap-token.js';

/** The secret as stored: stringData folded into base64 data. */
function stored(s: Secret): Secret {
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.stringData ?? {})) data[k] = Buffer.from(v).toString('base64');
  return { ...s, stringData: undefined, data };
}

test('tokens are <id>.<secret> of lower-case letters and digits', () => {
  assert.deepEqual(parseBootstrapToken('abcdef.0123456789abcdef'), { id: 'abcdef', secret: '0123456789abcdef' });
  for (const bad of ['abcdef.0123456789abcde', 'ABCDEF.0123456789abcdef', 'abcdef0123456789abcdef', 'eyJ.x.y']) assert.equal(parseBootstrapToken(bad), undefined, bad);
  assert.ok(parseBootstrapToken(generateBootstrapToken()));
});

test('the secret carries id, secret, expiry, usages and groups; expiry and groups are checked', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const s = stored(bootstrapTokenSecret({ token: 'abcdef.0123456789abcdef', expires: new Date('2026-01-02T00:00:00Z'), groups: ['system:bootstrappers:kubeadm:default-node-token'] }));
  assert.equal(s.metadata?.name, 'bootstrap-token-abcdef');
  assert.equal(s.type, 'bootstrap.kubernetes.io/token');
  assert.equal(bootstrapTokenExpired(s, now), false);
  assert.equal(bootstrapTokenExpired(s, new Date('2026-01-02T00:00:00Z')), true);
  assert.deepEqual(bootstrapTokenGroups(s), ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token']);
  const badGroup = stored(bootstrapTokenSecret({ token: 'abcdef.0123456789abcdef', groups: ['system:masters'] }));
  assert.throws(() => bootstrapTokenGroups(badGroup), /bootstrap group "system:masters" is invalid/);
  assert.equal(bootstrapTokenExpired(stored(bootstrapTokenSecret({ token: 'abcdef.0123456789abcdef' })), now), false);
});
