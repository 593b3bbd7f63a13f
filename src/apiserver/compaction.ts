import type { Logger } from '../machinery/logger.js';
import type { Storage } from '../storage/storage.js';

/**
 * Compacts storage on a schedule, keeping one interval of history: each tick
 * compacts up to the revision seen on the previous tick (upstream: every 5
 * minutes).
 */
export async function runCompaction(storage: Storage, opts: { intervalMs: number; logger: Logger; signal: AbortSignal }): Promise<void> {
  let previous = await storage.currentRevision();
  while (!opts.signal.aborted) {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, opts.intervalMs);
      opts.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
    if (opts.signal.aborted) return;
    try {
      const current = await storage.currentRevision();
      if (previous > (await storage.compactedRevision())) {
        await storage.compact(previous);
        opts.logger.info('compacted storage', { revision: previous, current });
      }
      previous = current;
    } catch (err) {
      opts.logger.warn('compaction failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
