import type { ContainerImage } from 'kubernetes-types/core/v1.js';
import type { Logger } from '../../machinery/logger.js';
import type { ImageService } from '../runtime/runtime.js';

/** Upstream's --node-status-max-images default. */
export const NODE_STATUS_MAX_IMAGES = 50;

/** The node's `status.images` from the runtime's images: largest first, names = digests then tags, at most 50 as upstream. */
export function nodeStatusImages(images: readonly { repoTags: string[]; repoDigests: string[]; sizeBytes: number }[], max = NODE_STATUS_MAX_IMAGES): ContainerImage[] {
  return images
    .filter((i) => i.repoTags.length + i.repoDigests.length > 0)
    .sort((a, b) => b.sizeBytes - a.sizeBytes)
    .slice(0, max)
    .map((i) => ({ names: [...i.repoDigests, ...i.repoTags], sizeBytes: i.sizeBytes }));
}

/** The runtime's image list as of the last refresh (read synchronously by the node status reporter). */
export class NodeImages {
  current: ContainerImage[] = [];

  constructor(private readonly images: ImageService, private readonly logger: Logger) {}

  async refresh(): Promise<void> {
    try {
      this.current = nodeStatusImages(await this.images.listImages());
    } catch (err) {
      this.logger.debug('listing images failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
