import { realClock, type Clock } from '../base/clock.js';
import type { Logger } from '../machinery/logger.js';
import type { ApiRegistry } from './api-registry.js';

/**
 * Events expire (upstream: `--event-ttl`, 1 h, through etcd leases). Every
 * sweep deletes events last written more than `ttlMs` ago, so a busy cluster's
 * event history stays bounded.
 */
export async function runEventExpiry(registry: ApiRegistry, opts: { ttlMs: number; intervalMs: number; logger: Logger; signal: AbortSignal; clock?: Clock }): Promise<void> {
  const stores = [registry.lookup('', 'v1', 'events')!, registry.lookup('events.k8s.io', 'v1', 'events')!];
  const clock = opts.clock ?? realClock;
  while (!opts.signal.aborted) {
    await clock.sleep(opts.intervalMs, opts.signal);
    if (opts.signal.aborted) return;
    const cutoff = clock.now() - opts.ttlMs;
    let expired = 0;
    try {
      for (const store of stores) {
        const list = await store.list('', {});
        for (const ev of list.items) {
          const last = Date.parse(
            String(ev.lastTimestamp ?? ev.eventTime ?? (ev.series as { lastObservedTime?: string } | undefined)?.lastObservedTime ?? ev.metadata?.creationTimestamp ?? ''),
          );
          if (Number.isFinite(last) && last < cutoff) {
            await store.delete(ev.metadata?.namespace ?? '', ev.metadata?.name ?? '', { dryRun: false }).catch(() => undefined);
            expired++;
          }
        }
      }
      if (expired) opts.logger.info('expired events', { count: expired });
    } catch (err) {
      opts.logger.warn('event expiry failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
