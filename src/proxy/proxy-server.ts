import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { SharedInformerFactory } from '../client/cache/shared-informer-factory.js';
import { realClock, type Clock } from '../base/clock.js';
import { ChangeFlag } from '../base/change-flag.js';
import type { Client } from '../client/rest/client.js';
import type { Logger } from '../machinery/logger.js';
import { endpointsFromSlices } from './endpoints-from-slices.js';
import type { ProxyMetrics } from './proxy-metrics.js';
import type { ProxyMode } from './proxy-mode.js';
import { servicePortsFromService, type ServicePort } from './service-port.js';
import type { EndpointsMap } from './proxy-mode.js';
import type { SpanContext } from '@opentelemetry/api';
import { addCause, currentCause, inCausedSpan } from '../trace/spans.js';
import { ENDPOINT_SLICES, SERVICES } from '../api/resource-refs.js';

const TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';

export interface ProxyServerOptions {
  client: Client;
  mode: ProxyMode;
  logger: Logger;
  metrics: ProxyMetrics;
  /** Least time between syncs, so bursts of changes coalesce (upstream --*-min-sync-period). */
  minSyncPeriodMs?: number;
  /** Full resync even without changes, retrying what failed (upstream --*-sync-period). */
  syncPeriodMs?: number;
  /** Back-off after a failed sync. */
  retryPeriodMs?: number;
  /** Time and timers (default the real clock). */
  clock?: Clock;
  /** Serves the health check node ports of Services with externalTrafficPolicy Local. */
  serviceHealth?: { sync(services: readonly ServicePort[], endpoints: EndpointsMap): Promise<void>; stop(): Promise<void> };
}

/**
 * kube-proxy's control loop: informers on Services and EndpointSlices mark
 * the state dirty, and a single loop hands the full state to the mode,
 * at most once per minSyncPeriod and at least once per syncPeriod.
 */
export class ProxyServer {
  private readonly changes: ChangeFlag;
  private lastSyncAt = 0;
  private queuedAt?: number;
  private synced = false;
  /** The traced watch deliveries of the changes the next sync programs. */
  private causes: SpanContext[] = [];
  /** Trigger times already measured, per slice, so each change is observed once. */
  private readonly measured = new Map<string, string>();

  private readonly clock: Clock;

  constructor(private readonly o: ProxyServerOptions) {
    this.clock = o.clock ?? realClock;
    this.changes = new ChangeFlag(this.clock);
  }

  /** For /readyz: the first sync happened and no change has waited too long. */
  healthy(): void {
    if (!this.synced) throw new Error('proxy rules not yet synced');
    const limit = 2 * (this.o.syncPeriodMs ?? 30_000);
    if (this.queuedAt !== undefined && this.clock.now() - this.queuedAt > limit) throw new Error(`a change has waited over ${limit / 1000}s to be synced`);
  }

  /** Routes until the signal aborts, then undoes the mode's setup. */
  async run(signal: AbortSignal): Promise<void> {
    const informers = new SharedInformerFactory(this.o.client);
    const services = informers.forResource<Service>(SERVICES);
    const slices = informers.forResource<EndpointSlice>(ENDPOINT_SLICES);
    services.addEventHandler(this.changed(() => this.o.metrics.serviceChanges.inc()));
    slices.addEventHandler(this.changed(() => this.o.metrics.endpointChanges.inc()));
    try {
      await informers.runWhileSynced(signal, async () => {
        this.o.logger.info('proxy caches synced', { mode: this.o.mode.name });
        while (!signal.aborted) {
          await this.changes.wait(this.o.syncPeriodMs ?? 30_000, signal);
          if (signal.aborted) break;
          const wait = this.lastSyncAt + (this.o.minSyncPeriodMs ?? 0) - this.clock.now();
          if (wait > 0) await this.clock.sleep(wait, signal);
          if (signal.aborted) break;
          this.changes.take();
          const causes = this.causes;
          this.causes = [];
          // one sync programs every change since the last: linked to all their writes
          const sync = () => this.sync(services.lister.list(), slices.lister.list(), signal);
          if (causes.length === 0) await sync();
          else await inCausedSpan('program proxy rules', causes, { hop: 'proxy', initiator: 'watch', attributes: { 'skiff.proxy.mode': this.o.mode.name } }, sync);
        }
      });
    } finally {
      await this.o.serviceHealth?.stop();
      await this.o.mode.stop();
    }
  }

  private changed(count: () => void) {
    const mark = (): void => {
      count();
      this.queuedAt ??= this.clock.now();
      this.o.metrics.lastQueued.set({}, this.clock.now() / 1000);
      const cause = currentCause();
      if (cause) addCause(this.causes, cause);
      this.changes.mark();
    };
    return { onAdd: mark, onUpdate: mark, onDelete: mark };
  }

  private async sync(services: readonly Service[], slices: readonly EndpointSlice[], signal: AbortSignal): Promise<void> {
    const started = performance.now();
    this.queuedAt = undefined;
    try {
      const ports = services.flatMap(servicePortsFromService);
      const endpoints = endpointsFromSlices(slices);
      await this.o.mode.sync(ports, endpoints);
      await this.o.serviceHealth?.sync(ports, endpoints);
    } catch (err) {
      this.o.logger.error('syncing proxy rules failed', { mode: this.o.mode.name, error: err });
      this.queuedAt ??= this.clock.now();
      await this.clock.sleep(this.o.retryPeriodMs ?? 1000, signal);
      this.changes.mark();
      return;
    }
    const now = this.clock.now();
    this.lastSyncAt = now;
    this.synced = true;
    this.o.metrics.syncDuration.observe({}, (performance.now() - started) / 1000);
    this.o.metrics.lastSync.set({}, now / 1000);
    this.observeProgramming(slices, now);
  }

  /** Network programming latency: from the change that triggered a slice write to now. */
  private observeProgramming(slices: readonly EndpointSlice[], now: number): void {
    const seen = new Set<string>();
    for (const s of slices) {
      const key = `${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`;
      seen.add(key);
      const trigger = s.metadata?.annotations?.[TRIGGER_TIME];
      if (!trigger || this.measured.get(key) === trigger) continue;
      this.measured.set(key, trigger);
      const t = Date.parse(trigger);
      if (Number.isFinite(t)) this.o.metrics.networkProgramming.observe({}, Math.max(0, (now - t) / 1000));
    }
    for (const key of this.measured.keys()) if (!seen.has(key)) this.measured.delete(key);
  }
}
