import { realClock, type Clock } from '../base/clock.js';
import type { Logger } from '../machinery/logger.js';
import type { Storage } from '../storage/storage.js';

/**
 * Gets the store out of NOSPACE by itself once room was made: while the
 * alarm is raised and something was deleted since the last attempt, it
 * compacts at the current revision and defragments, which clears the alarm
 * when the store is under its quota again (etcd needs an operator for the
 * same steps: compact, defrag, alarm disarm, so with `reclaim: false` the
 * alarms are only logged). Alarms are logged as they come and go.
 */
export async function runSpaceRecovery(storage: Storage, opts: { intervalMs: number; logger: Logger; signal: AbortSignal; clock?: Clock; reclaim?: boolean }): Promise<void> {
  const clock = opts.clock ?? realClock;
  let raised = '';
  let triedAt = -1;
  while (!opts.signal.aborted) {
    await clock.sleep(opts.intervalMs, opts.signal);
    if (opts.signal.aborted) return;
    try {
      const alarms = (await storage.alarms?.()) ?? [];
      const now = alarms.map((a) => `${a.type}: ${a.message}`).join('; ');
      if (now !== raised) {
        if (now) opts.logger.error('storage alarm raised: writes are refused', { alarms: now });
        else opts.logger.info('storage alarms cleared');
        raised = now;
      }
      if (opts.reclaim === false || !alarms.some((a) => a.type === 'NOSPACE') || !storage.defragment) continue;
      const current = await storage.currentRevision();
      if (current === triedAt) continue;
      triedAt = current;
      if (current > (await storage.compactedRevision())) await storage.compact(current);
      await storage.defragment();
      opts.logger.info('compacted and defragmented storage under NOSPACE', { revision: current, alarms: ((await storage.alarms?.()) ?? []).length });
    } catch (err) {
      opts.logger.warn('storage space recovery failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
