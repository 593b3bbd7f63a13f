import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { ImagePullError, type ImageInfo, type ImageService, type RegistryAuth } from '../runtime/runtime.js';
import { goDuration, ImagePuller } from './image-puller.js';
import { FakeClock } from '../../base/fake-clock.js';

class FakeImages implements ImageService {
  readonly present = new Map<string, ImageInfo>();
  readonly pulls: { image: string; auth?: RegistryAuth }[] = [];
  /** Images a pull finds in the "registry"; others fail. */
  readonly remote = new Set<string>();
  /** Credentials the registry accepts (none: anonymous pulls work). */
  accept?: string;

  async imageStatus(image: string) {
    return this.present.get(image);
  }

  async pullImage(image: string, auth?: RegistryAuth) {
    this.pulls.push({ image, auth });
    if (this.accept && auth?.username !== this.accept) throw new ImagePullError('rpc error: code = Unknown desc = 401 Unauthorized');
    if (!this.remote.has(image)) throw new ImagePullError(`rpc error: code = NotFound desc = failed to pull and unpack image "${image}": not found`);
    this.present.set(image, { id: `sha256:${image.length}`, repoTags: [image], repoDigests: [], sizeBytes: 1234 });
    return `sha256:${image.length}`;
  }

  async listImages() {
    return [...this.present.values()];
  }
}

function setup() {
  const clock = new FakeClock(1_000_000);
  const images = new FakeImages();
  const events: string[] = [];
  const puller = new ImagePuller({ images, clock, recordEvent: (_p, type, reason, message) => events.push(`${type} ${reason} ${message}`) });
  const pod: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [] } };
  return { images, events, puller, pod, advance: (ms: number) => clock.set(clock.now() + ms) };
}

const container = (image: string, imagePullPolicy?: string): Container => ({ name: 'c', image, imagePullPolicy });

test('IfNotPresent uses the present image; Always pulls it again', async () => {
  const { images, events, puller, pod } = setup();
  images.present.set('app:1', { id: 'sha256:a', repoTags: ['app:1'], repoDigests: [], sizeBytes: 1 });
  images.remote.add('app:1');
  assert.deepEqual(await puller.ensureImageExists(pod, container('app:1', 'IfNotPresent'), []), { ok: true, imageRef: 'sha256:a' });
  assert.deepEqual(events, ['Normal Pulled Container image "app:1" already present on machine']);
  assert.equal(images.pulls.length, 0);
  assert.equal((await puller.ensureImageExists(pod, container('app:1', 'Always'), [])).ok, true);
  assert.equal(images.pulls.length, 1);
  assert.match(events.at(-1)!, /^Normal Pulled Successfully pulled image "app:1" in \d+ms \(\d+ms including waiting\)\. Image size: 1234 bytes\.$/);
  assert.equal(events.at(-2), 'Normal Pulling Pulling image "app:1"');
});

test('Never with a missing image is ErrImageNeverPull; without a policy the tag decides', async () => {
  const { images, events, puller, pod } = setup();
  const res = await puller.ensureImageExists(pod, container('app:1', 'Never'), []);
  assert.deepEqual(res, { ok: false, reason: 'ErrImageNeverPull', message: 'Container image "app:1" is not present with pull policy of Never', retryAfterMs: 10_000 });
  assert.deepEqual(events, ['Warning ErrImageNeverPull Container image "app:1" is not present with pull policy of Never']);
  images.remote.add('app');
  images.present.set('app', { id: 'sha256:old', repoTags: ['app'], repoDigests: [], sizeBytes: 1 });
  await puller.ensureImageExists(pod, container('app'), []);
  assert.equal(images.pulls.length, 1, 'an untagged image is pulled even when present (Always)');
});

test('a failed pull is ErrImagePull, then ImagePullBackOff for 10 s doubling to 5 min', async () => {
  const { images, events, puller, pod, advance } = setup();
  const first = await puller.ensureImageExists(pod, container('missing:1'), []);
  assert.equal(first.ok, false);
  assert.equal(!first.ok && first.reason, 'ErrImagePull');
  assert.equal(!first.ok && first.message, 'rpc error: code = NotFound desc = failed to pull and unpack image "missing:1": not found');
  assert.deepEqual(events.splice(0), [
    'Normal Pulling Pulling image "missing:1"',
    'Warning Failed Failed to pull image "missing:1": rpc error: code = NotFound desc = failed to pull and unpack image "missing:1": not found',
  ]);
  advance(4000);
  const backoff = await puller.ensureImageExists(pod, container('missing:1'), []);
  assert.deepEqual(backoff, { ok: false, reason: 'ImagePullBackOff', message: 'Back-off pulling image "missing:1"', retryAfterMs: 6000 });
  assert.deepEqual(events.splice(0), ['Normal BackOff Back-off pulling image "missing:1"']);
  assert.equal(images.pulls.length, 1);
  advance(6000);
  assert.equal(!(await puller.ensureImageExists(pod, container('missing:1'), [])).ok && 'pulled', 'pulled');
  assert.equal(images.pulls.length, 2);
  advance(19_000);
  const second = await puller.ensureImageExists(pod, container('missing:1'), []);
  assert.equal(!second.ok && second.reason, 'ImagePullBackOff', 'the second back-off is 20 s');
  images.remote.add('missing:1');
  advance(1000);
  assert.equal((await puller.ensureImageExists(pod, container('missing:1'), [])).ok, true);
});

test('pull secrets are tried in turn', async () => {
  const { images, puller, pod } = setup();
  images.remote.add('reg.local:5000/app:1');
  images.accept = 'right';
  const secret = (user: string, key: string) => ({ data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths: { [key]: { username: user, password: 'pw' } } })).toString('base64') } });
  const res = await puller.ensureImageExists(pod, container('reg.local:5000/app:1'), [secret('wrong', 'reg.local:5000/app'), secret('right', 'reg.local:5000')]);
  assert.equal(res.ok, true);
  assert.deepEqual(images.pulls.map((p) => p.auth?.username), ['wrong', 'right']);
});

test('durations read as Go prints them', () => {
  assert.equal(goDuration(523), '523ms');
  assert.equal(goDuration(2341), '2.341s');
  assert.equal(goDuration(2000), '2s');
  assert.equal(goDuration(61_500), '1m1.5s');
});
