import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../base/fake-clock.js';
import { createLogger } from '../../machinery/logger.js';
import type { ContainerStatus, ImageInfo } from '../runtime/runtime.js';
import { ImageGC, type ImageFsStats, type ImageGCRuntime } from './image-gc.js';

const MB = 1024 * 1024;
const logger = createLogger('test', {}, () => undefined);

/** Images on a filesystem whose free space grows by what is removed. */
class FakeImageRuntime implements ImageGCRuntime {
  removed: string[] = [];
  refuse = new Set<string>();
  containers: Partial<ContainerStatus>[] = [];
  constructor(public images: ImageInfo[], public fs: ImageFsStats) {}
  async listImages(): Promise<ImageInfo[]> {
    return this.images;
  }
  async listContainers(): Promise<ContainerStatus[]> {
    return this.containers as ContainerStatus[];
  }
  async removeImage(id: string): Promise<void> {
    if (this.refuse.has(id)) throw new Error(`image ${id} is busy`);
    const img = this.images.find((i) => i.id === id)!;
    this.images = this.images.filter((i) => i !== img);
    this.fs = { ...this.fs, availableBytes: this.fs.availableBytes + img.sizeBytes };
    this.removed.push(id);
  }
  async imageFsStats(): Promise<ImageFsStats> {
    return this.fs;
  }
}

const image = (id: string, sizeMB: number, tags: string[] = [`skiff.test/${id.replace("sha256:", "")}:1`], extra: Partial<ImageInfo> = {}): ImageInfo => ({ id, repoTags: tags, repoDigests: [], sizeBytes: sizeMB * MB, ...extra });

function setup(images: ImageInfo[], fs: ImageFsStats) {
  const runtime = new FakeImageRuntime(images, fs);
  const clock = new FakeClock();
  const events: [string, string][] = [];
  const gc = new ImageGC({ runtime, clock, logger, pinnedImages: ['skiff.local/pause:1'], recordNodeEvent: (reason, message) => events.push([reason, message]) });
  return { runtime, clock, events, gc };
}

test('below the high threshold nothing is removed', async () => {
  // 84% used
  const { runtime, clock, gc } = setup([image('a', 10)], { capacityBytes: 1000 * MB, availableBytes: 160 * MB });
  await gc.garbageCollect();
  await clock.advance(10 * 60_000);
  await gc.garbageCollect();
  assert.deepEqual(runtime.removed, []);
});

test('over the high threshold, unused images go least recently used first until the low threshold', async () => {
  const images = [
    image('sha256:old-unused', 40), image('sha256:used-earlier', 40), image('sha256:running', 300),
    image('sha256:pause', 5, ['skiff.local/pause:1']), image('sha256:pinned', 5, ['x:1'], { pinned: true }), image('sha256:recent-unused', 40),
  ];
  // 86% used: to reach 80% the GC must free 60 MB
  const { runtime, clock, gc, events } = setup(images, { capacityBytes: 1000 * MB, availableBytes: 140 * MB });
  runtime.containers = [{ id: 'c1', image: 'skiff.test/used-earlier:1', state: 'Exited' }, { id: 'c2', image: 'skiff.test/running:1', imageRef: 'sha256:running', state: 'Running' }];
  await assert.rejects(gc.garbageCollect(), { name: 'ImageGCError', reason: 'FreeDiskSpaceFailed' });
  // everything is younger than the minimum age: nothing may go yet, and that is a failure
  assert.deepEqual(runtime.removed, []);
  assert.deepEqual(events.map(([r]) => r), ['FreeDiskSpaceFailed']);
  assert.equal(events[0]![1], `Failed to garbage collect required amount of images. Attempted to free ${60 * MB} bytes, but only found 0 bytes eligible to free.`);

  // the exited container goes away: its image was last used now, the other unused ones never
  await clock.advance(60_000);
  runtime.containers = runtime.containers.filter((c) => c.id !== 'c1');
  await gc.garbageCollect().catch(() => undefined);
  await clock.advance(2 * 60_000);
  await gc.garbageCollect();
  // never used first (in the order first seen), then the one used a while ago, until 60 MB are freed
  assert.deepEqual(runtime.removed, ['sha256:old-unused', 'sha256:recent-unused']);
  assert.ok(runtime.images.some((i) => i.id === 'sha256:used-earlier'));
  for (const kept of ['sha256:running', 'sha256:pause', 'sha256:pinned']) assert.ok(runtime.images.some((i) => i.id === kept), kept);
});

test('an image younger than the minimum age is kept; one that cannot be removed is skipped', async () => {
  const { runtime, clock, gc } = setup([image('sha256:busy', 100), image('sha256:old', 100)], { capacityBytes: 1000 * MB, availableBytes: 100 * MB });
  await gc.garbageCollect().catch(() => undefined);
  await clock.advance(3 * 60_000);
  runtime.images.push(image('sha256:young', 100));
  runtime.refuse.add('sha256:busy');
  await gc.garbageCollect().catch(() => undefined);
  assert.deepEqual(runtime.removed, ['sha256:old']);
  assert.ok(runtime.images.some((i) => i.id === 'sha256:young'));
});

test('failing twice in a row is an ImageGCFailed event; a zero capacity is InvalidDiskCapacity', async () => {
  const { runtime, gc, events } = setup([], { capacityBytes: 1000 * MB, availableBytes: 10 * MB });
  await gc.collectOnce();
  assert.deepEqual(events.map(([r]) => r), ['FreeDiskSpaceFailed']);
  await gc.collectOnce();
  assert.deepEqual(events.map(([r]) => r), ['FreeDiskSpaceFailed', 'FreeDiskSpaceFailed', 'ImageGCFailed']);
  assert.match(events[2]![1], /^Failed to garbage collect required amount of images/);
  runtime.fs = { capacityBytes: 0, availableBytes: 0 };
  events.length = 0;
  await gc.collectOnce();
  assert.deepEqual(events, [['InvalidDiskCapacity', 'invalid capacity 0 on image filesystem'], ['ImageGCFailed', 'invalid capacity 0 on image filesystem']]);
});
