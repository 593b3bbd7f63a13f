import { realClock, type Clock } from '../../base/clock.js';
import type { Logger } from '../../machinery/logger.js';
import type { ContainerStatus, ImageInfo } from '../runtime/runtime.js';

/** Upstream's defaults: --image-gc-high-threshold 85, --image-gc-low-threshold 80, --image-minimum-gc-age 2m, every 5 min. */
export const DEFAULT_IMAGE_GC_POLICY: ImageGCPolicy = { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 2 * 60_000 };
const IMAGE_GC_PERIOD_MS = 5 * 60_000;

export interface ImageGCPolicy {
  /** Disk usage (percent) of the image filesystem at or above which images are removed; 100 turns GC off. */
  highThresholdPercent: number;
  /** Usage (percent) GC frees down to. */
  lowThresholdPercent: number;
  /** An unused image younger than this (since first seen) is kept. */
  minAgeMs: number;
}

/** The image filesystem's size and free bytes (statfs of where the runtime keeps its layers). */
export interface ImageFsStats {
  capacityBytes: number;
  availableBytes: number;
}

/** What image GC needs of the runtime: its images, its containers (to know what is in use), removal and the filesystem. */
export interface ImageGCRuntime {
  listImages(): Promise<ImageInfo[]>;
  listContainers(): Promise<ContainerStatus[]>;
  removeImage(image: string): Promise<void>;
  imageFsStats(): Promise<ImageFsStats>;
}

export function isImageGCRuntime(r: object): r is ImageGCRuntime {
  return 'listImages' in r && 'listContainers' in r && 'removeImage' in r && 'imageFsStats' in r;
}

/** Image GC could not get usage below the high threshold; the message is upstream's. */
export class ImageGCError extends Error {
  override readonly name = 'ImageGCError';
  constructor(readonly reason: 'FreeDiskSpaceFailed' | 'InvalidDiskCapacity' | 'ImageGCFailed', message: string) {
    super(message);
  }
}

interface ImageRecord {
  firstDetected: number;
  lastUsed: number;
  size: number;
}

export interface ImageGCOptions {
  runtime: ImageGCRuntime;
  policy?: Partial<ImageGCPolicy>;
  /** Images never removed: the sandbox (pause) image. */
  pinnedImages?: string[];
  /** A Warning event on the Node (FreeDiskSpaceFailed, ImageGCFailed, InvalidDiskCapacity). */
  recordNodeEvent(reason: string, message: string): void;
  logger: Logger;
  clock?: Clock;
}

/**
 * Upstream's image garbage collection: each image is remembered with when
 * it was first seen and last used by a container; when the image
 * filesystem's usage reaches the high threshold, unused images (never the
 * sandbox image or a pinned one, never one used by any container, exited
 * ones included, never one younger than the minimum age) are removed least
 * recently used first until usage would be at the low threshold. Not
 * finding enough is a `FreeDiskSpaceFailed` event; failing twice in a row,
 * an `ImageGCFailed` event, as upstream's kubelet.
 */
export class ImageGC {
  private readonly records = new Map<string, ImageRecord>();
  private readonly policy: ImageGCPolicy;
  private readonly clock: Clock;
  private previousFailed = false;

  constructor(private readonly opts: ImageGCOptions) {
    this.policy = { ...DEFAULT_IMAGE_GC_POLICY, ...opts.policy };
    this.clock = opts.clock ?? realClock;
  }

  async run(signal: AbortSignal): Promise<void> {
    if (this.policy.highThresholdPercent >= 100) {
      this.opts.logger.info('image garbage collection disabled (--image-gc-high-threshold 100)');
      return;
    }
    while (!signal.aborted) {
      await this.collectOnce();
      await this.clock.sleep(IMAGE_GC_PERIOD_MS, signal);
    }
  }

  /** One GC round as the kubelet's loop runs it: failures are logged, repeated ones become an ImageGCFailed event. */
  async collectOnce(): Promise<void> {
    try {
      await this.garbageCollect();
      this.previousFailed = false;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (this.previousFailed) {
        this.opts.logger.info('image garbage collection failed multiple times in a row', { error: message });
        this.opts.recordNodeEvent('ImageGCFailed', message);
      } else {
        this.opts.logger.info('image garbage collection failed once', { error: message });
      }
      this.previousFailed = true;
    }
  }

  /** Frees space when usage is at or over the high threshold; throws ImageGCError when it cannot free enough. */
  async garbageCollect(): Promise<void> {
    const now = this.clock.now();
    const images = await this.detectImages(now);
    const fs = await this.opts.runtime.imageFsStats();
    const capacity = fs.capacityBytes;
    const available = Math.min(fs.availableBytes, capacity);
    if (capacity <= 0) {
      const err = new ImageGCError('InvalidDiskCapacity', 'invalid capacity 0 on image filesystem');
      this.opts.recordNodeEvent(err.reason, err.message);
      throw err;
    }
    const usagePercent = 100 - Math.floor((available * 100) / capacity);
    if (usagePercent < this.policy.highThresholdPercent) return;
    const amountToFree = Math.floor((capacity * (100 - this.policy.lowThresholdPercent)) / 100) - available;
    this.opts.logger.info('disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold', {
      usage: usagePercent, highThreshold: this.policy.highThresholdPercent, amountToFree, lowThreshold: this.policy.lowThresholdPercent,
    });
    const freed = await this.freeSpace(amountToFree, now, images);
    if (freed < amountToFree) {
      const err = new ImageGCError('FreeDiskSpaceFailed', `Failed to garbage collect required amount of images. Attempted to free ${amountToFree} bytes, but only found ${freed} bytes eligible to free.`);
      this.opts.recordNodeEvent(err.reason, err.message);
      throw err;
    }
  }

  /** Removes every unused image old enough (the eviction manager's node-level reclaim under disk pressure); returns bytes freed. */
  async deleteUnusedImages(): Promise<number> {
    const now = this.clock.now();
    return this.freeSpace(Number.POSITIVE_INFINITY, now, await this.detectImages(now));
  }

  /** Updates the records from the runtime; returns the images that may be removed. */
  private async detectImages(now: number): Promise<ImageInfo[]> {
    const [images, containers] = await Promise.all([this.opts.runtime.listImages(), this.opts.runtime.listContainers()]);
    const inUse = new Set(containers.flatMap((c) => [c.image, c.imageRef ?? '']).filter(Boolean));
    const pinned = new Set(this.opts.pinnedImages ?? []);
    const names = (i: ImageInfo) => [i.id, ...i.repoTags, ...i.repoDigests];
    const seen = new Set<string>();
    const candidates: ImageInfo[] = [];
    for (const image of images) {
      seen.add(image.id);
      let rec = this.records.get(image.id);
      if (!rec) {
        rec = { firstDetected: now, lastUsed: 0, size: image.sizeBytes };
        this.records.set(image.id, rec);
      }
      rec.size = image.sizeBytes;
      if (names(image).some((n) => inUse.has(n))) rec.lastUsed = now;
      else if (!image.pinned && !names(image).some((n) => pinned.has(n))) candidates.push(image);
    }
    for (const id of this.records.keys()) if (!seen.has(id)) this.records.delete(id);
    return candidates;
  }

  /** Removes candidates least recently used first (then oldest seen) until `bytesToFree` are freed; returns bytes freed. */
  private async freeSpace(bytesToFree: number, now: number, candidates: ImageInfo[]): Promise<number> {
    const byAge = candidates
      .map((image) => ({ image, rec: this.records.get(image.id)! }))
      .sort((a, b) => a.rec.lastUsed - b.rec.lastUsed || a.rec.firstDetected - b.rec.firstDetected);
    let freed = 0;
    for (const { image, rec } of byAge) {
      if (freed >= bytesToFree) break;
      if (rec.lastUsed >= now) continue;
      if (now - rec.firstDetected < this.policy.minAgeMs) continue;
      try {
        this.opts.logger.info('removing image to free bytes', { image: image.id, size: rec.size });
        await this.opts.runtime.removeImage(image.id);
      } catch (err) {
        this.opts.logger.info('failed to remove image', { image: image.id, error: err instanceof Error ? err.message : String(err) });
        continue;
      }
      this.records.delete(image.id);
      freed += rec.size;
    }
    return freed;
  }
}
