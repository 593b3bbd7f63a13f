import type { Container, Pod, Secret } from 'kubernetes-types/core/v1.js';
import { ImagePullError, type ImageService } from '../runtime/runtime.js';
import { DockerKeyring } from './docker-keyring.js';
import { defaultPullPolicy } from './image-reference.js';
import { realClock, type Clock } from '../../base/clock.js';

/** Upstream's image pull back-off: 10 s, doubling to 5 min. */
const INITIAL_BACKOFF_MS = 10_000;
const MAX_BACKOFF_MS = 300_000;

export type ImageWaitingReason = 'ErrImagePull' | 'ImagePullBackOff' | 'ErrImageNeverPull' | 'ImageInspectError';

export type EnsureImageResult =
  | { ok: true; imageRef: string }
  | { ok: false; reason: ImageWaitingReason; message: string; retryAfterMs: number };

export interface ImagePullerOptions {
  images: ImageService;
  recordEvent(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/** A duration in Go's `time.Duration` words at millisecond precision (`523ms`, `2.341s`), as upstream's events show it. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.floor(ms))}ms`;
  const m = Math.floor(ms / 60_000);
  const s = ((ms % 60_000) / 1000).toFixed(3).replace(/\.?0+$/, '');
  return m > 0 ? `${m}m${s}s` : `${s}s`;
}

interface Backoff {
  durationMs: number;
  lastUpdate: number;
}

/**
 * Upstream's image manager (`EnsureImageExists`): decides from the pull
 * policy whether to pull, pulls with the pod's pull secrets, and keeps a
 * per pod-and-image back-off, recording upstream's events (Pulling, Pulled,
 * Failed, BackOff, ErrImageNeverPull) on the way.
 */
export class ImagePuller {
  private readonly backoffs = new Map<string, Backoff>();
  private readonly clock: Clock;

  constructor(private readonly opts: ImagePullerOptions) {
    this.clock = opts.clock ?? realClock;
  }

  async ensureImageExists(pod: Pod, container: Container, pullSecrets: readonly Secret[]): Promise<EnsureImageResult> {
    const image = container.image ?? '';
    const event = (type: 'Normal' | 'Warning', reason: string, message: string) => this.opts.recordEvent(pod, type, reason, message);
    let present: string | undefined;
    try {
      present = (await this.opts.images.imageStatus(image))?.id;
    } catch (err) {
      const message = `Failed to inspect image "${image}": ${err instanceof Error ? err.message : String(err)}`;
      event('Warning', 'InspectFailed', message);
      return { ok: false, reason: 'ImageInspectError', message, retryAfterMs: 5000 };
    }
    const policy = container.imagePullPolicy || defaultPullPolicy(image);
    if (policy === 'Never' || (policy === 'IfNotPresent' && present)) {
      if (present) {
        event('Normal', 'Pulled', `Container image "${image}" already present on machine`);
        return { ok: true, imageRef: present };
      }
      const message = `Container image "${image}" is not present with pull policy of Never`;
      event('Warning', 'ErrImageNeverPull', message);
      return { ok: false, reason: 'ErrImageNeverPull', message, retryAfterMs: 10_000 };
    }
    const key = `${pod.metadata?.uid}_${image}`;
    const now = this.clock.now();
    const b = this.backoffs.get(key);
    if (b && now - b.lastUpdate < b.durationMs) {
      const message = `Back-off pulling image "${image}"`;
      event('Normal', 'BackOff', message);
      return { ok: false, reason: 'ImagePullBackOff', message, retryAfterMs: b.lastUpdate + b.durationMs - now };
    }
    event('Normal', 'Pulling', `Pulling image "${image}"`);
    const started = this.clock.now();
    try {
      const imageRef = await this.pull(image, pullSecrets);
      const took = goDuration(this.clock.now() - started);
      const size = (await this.opts.images.imageStatus(image).catch(() => undefined))?.sizeBytes ?? 0;
      event('Normal', 'Pulled', `Successfully pulled image "${image}" in ${took} (${took} including waiting). Image size: ${size} bytes.`);
      this.backoffs.delete(key);
      this.gc();
      return { ok: true, imageRef };
    } catch (err) {
      if (!(err instanceof ImagePullError)) throw err;
      event('Warning', 'Failed', `Failed to pull image "${image}": ${err.message}`);
      const at = this.clock.now();
      const prev = this.backoffs.get(key);
      const durationMs = !prev || at - prev.lastUpdate > 2 * MAX_BACKOFF_MS ? INITIAL_BACKOFF_MS : Math.min(prev.durationMs * 2, MAX_BACKOFF_MS);
      this.backoffs.set(key, { durationMs, lastUpdate: at });
      // the next sync (soon) reports ImagePullBackOff until the back-off has passed
      return { ok: false, reason: 'ErrImagePull', message: err.message, retryAfterMs: 1000 };
    }
  }

  /** The user the image runs as, for runAsNonRoot (neither field: root). */
  async imageUser(image: string): Promise<{ uid?: number; username?: string }> {
    const info = await this.opts.images.imageStatus(image);
    return { ...(info?.uid !== undefined ? { uid: info.uid } : {}), ...(info?.username ? { username: info.username } : {}) };
  }

  /** Tries each matching credential in turn (most specific first), anonymously when none match. */
  private async pull(image: string, pullSecrets: readonly Secret[]): Promise<string> {
    const creds = new DockerKeyring(pullSecrets).lookup(image);
    if (creds.length === 0) return this.opts.images.pullImage(image);
    let last: unknown;
    for (const auth of creds) {
      try {
        return await this.opts.images.pullImage(image, auth);
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  /** Forgets back-offs that have long expired. */
  private gc(): void {
    const now = this.clock.now();
    for (const [k, b] of this.backoffs) if (now - b.lastUpdate > 2 * MAX_BACKOFF_MS) this.backoffs.delete(k);
  }
}
