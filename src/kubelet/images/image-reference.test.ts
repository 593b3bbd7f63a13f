import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultPullPolicy, parseImageReference, withDefaultTag } from './image-reference.js';

test('image references split as the distribution grammar does', () => {
  assert.deepEqual(parseImageReference('busybox'), { registry: 'docker.io', repository: 'library/busybox' });
  assert.deepEqual(parseImageReference('nginx:1.27'), { registry: 'docker.io', repository: 'library/nginx', tag: '1.27' });
  assert.deepEqual(parseImageReference('bitnami/redis:7'), { registry: 'docker.io', repository: 'bitnami/redis', tag: '7' });
  assert.deepEqual(parseImageReference('127.0.0.1:5000/web/app:v1'), { registry: '127.0.0.1:5000', repository: 'web/app', tag: 'v1' });
  assert.deepEqual(parseImageReference('localhost/app'), { registry: 'localhost', repository: 'app' });
  assert.deepEqual(parseImageReference('registry.k8s.io/pause@sha256:abc'), { registry: 'registry.k8s.io', repository: 'pause', digest: 'sha256:abc' });
});

test('the default pull policy follows the tag as upstream', () => {
  assert.equal(defaultPullPolicy('busybox'), 'Always');
  assert.equal(defaultPullPolicy('busybox:latest'), 'Always');
  assert.equal(defaultPullPolicy('busybox:1.36'), 'IfNotPresent');
  assert.equal(defaultPullPolicy('127.0.0.1:5000/app'), 'Always');
  assert.equal(defaultPullPolicy('app@sha256:abc'), 'IfNotPresent');
  assert.equal(withDefaultTag('127.0.0.1:5000/app'), '127.0.0.1:5000/app:latest');
  assert.equal(withDefaultTag('app:v1'), 'app:v1');
});
