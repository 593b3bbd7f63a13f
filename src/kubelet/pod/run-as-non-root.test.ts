import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { verifyRunAsNonRoot, type ImageUser } from './run-as-non-root.js';

const pod = (sc?: object): Pod => ({ metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [], ...(sc ? { securityContext: sc } : {}) } });
const image = (u: ImageUser) => async () => u;

test('runAsNonRoot is checked against runAsUser, then the image\'s user, as upstream', async () => {
  const c: Container = { name: 'c', securityContext: { runAsNonRoot: true } };
  assert.equal(await verifyRunAsNonRoot(pod(), c, image({})), 'container has runAsNonRoot and image will run as root (pod: "p_ns(u1)", container: c)');
  assert.equal(await verifyRunAsNonRoot(pod(), c, image({ uid: 0 })), 'container has runAsNonRoot and image will run as root (pod: "p_ns(u1)", container: c)');
  assert.equal(await verifyRunAsNonRoot(pod(), c, image({ uid: 1000 })), undefined);
  assert.equal(await verifyRunAsNonRoot(pod(), c, image({ username: 'nobody' })),
    'container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (pod: "p_ns(u1)", container: c)');
  assert.equal(await verifyRunAsNonRoot(pod({ runAsUser: 0 }), c, image({ uid: 1000 })), 'container\'s runAsUser breaks non-root policy (pod: "p_ns(u1)", container: c)');
  assert.equal(await verifyRunAsNonRoot(pod({ runAsNonRoot: true, runAsUser: 1234 }), { name: 'c' }, () => assert.fail('the image is not asked')), undefined);
  assert.equal(await verifyRunAsNonRoot(pod({ runAsNonRoot: true }), { name: 'c', securityContext: { runAsNonRoot: false } }, image({})), undefined, 'the container\'s setting wins');
  assert.equal(await verifyRunAsNonRoot(pod(), { name: 'c' }, image({})), undefined);
});
