import type { CycleState } from '../../framework/cycle-state.js';
import type { Handle, PluginFactory, ScorePlugin } from '../../framework/interface.js';
import { MAX_NODE_SCORE } from '../../framework/interface.js';
import { normalizeImageName, type NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';

export const NAME = 'ImageLocality';
const MB = 1024 * 1024;
const MIN_THRESHOLD = 23 * MB;
const MAX_CONTAINER_THRESHOLD = 1000 * MB;

/**
 * Prefers nodes that already hold the pod's images, weighted by image size
 * and scaled down for images present on most nodes (to avoid piling up).
 */
export class ImageLocality implements ScorePlugin {
  readonly name = NAME;

  constructor(private readonly handle: Pick<Handle, 'snapshot'>) {}

  /** Normalized image names per pod, worked out once rather than once per node. */
  private readonly images = new WeakMap<PodInfo, string[]>();

  private imagesOf(pod: PodInfo): string[] {
    let names = this.images.get(pod);
    if (!names) {
      names = [...(pod.pod.spec?.initContainers ?? []), ...(pod.pod.spec?.containers ?? [])].filter((c) => c.image).map((c) => normalizeImageName(c.image!));
      this.images.set(pod, names);
    }
    return names;
  }

  score(_state: CycleState, pod: PodInfo, node: NodeInfo): number {
    if (node.images.size === 0) return 0; // no image present: the floor score, without the per-image work
    const total = this.handle.snapshot.list().length;
    let sum = 0;
    for (const image of this.imagesOf(pod)) {
      const state = node.images.get(image);
      if (!state || total === 0) continue;
      sum += state.size * (this.handle.snapshot.imageNodeCount(image) / total);
    }
    const maxThreshold = MAX_CONTAINER_THRESHOLD * Math.max(1, (pod.pod.spec?.containers ?? []).length);
    const clamped = Math.min(Math.max(sum, MIN_THRESHOLD), maxThreshold);
    return Math.floor((MAX_NODE_SCORE * (clamped - MIN_THRESHOLD)) / (maxThreshold - MIN_THRESHOLD));
  }
}

export const factory: PluginFactory = (_args, handle) => new ImageLocality(handle);
