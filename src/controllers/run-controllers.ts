import { setMaxListeners } from 'node:events';
import type { Client } from '../client/rest/client.js';
import { SharedInformerFactory } from '../client/cache/shared-informer-factory.js';
import { stripManagedFields } from '../client/cache/transform.js';
import { EventRecorder } from '../client/events/event-recorder.js';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../machinery/logger.js';
import type { MetricsRegistry } from '../base/metrics/registry.js';
import type { ControllerConfig, ControllerDescriptor } from './controller-descriptor.js';

export interface RunControllersOptions {
  /** Shared by the informers. */
  client: Client;
  /**
   * The client a controller writes with. Upstream gives every controller its
   * own client (and so its own rate limit); default: the shared one.
   */
  clientFor?: (controller: string) => Client;
  controllers: readonly ControllerDescriptor[];
  logger: Logger;
  metrics: MetricsRegistry;
  /** Reported as the events' source host. */
  host?: string;
  /** Default resync of the shared informers in ms (0: none). */
  resyncPeriod?: number;
  /** Tunables from the controller manager's flags. */
  config?: Partial<ControllerConfig>;
  /** Where the controllers' time comes from (default the real clock). */
  clock?: Clock;
}

/**
 * Runs the given controllers over one shared informer factory until the
 * signal aborts (leadership lost or shutdown); resolves when all of them and
 * their informers have stopped and their events have been flushed. A
 * controller that fails is logged and does not take the others down.
 */
export async function runControllers(o: RunControllersOptions, signal: AbortSignal): Promise<void> {
  // Every in-flight request of every controller listens on this signal.
  setMaxListeners(0, signal);
  // as kube-controller-manager's informers: no controller reads managedFields, often the largest part of an object
  const informers = new SharedInformerFactory(o.client, { resyncPeriod: o.resyncPeriod, informer: { transform: stripManagedFields } });
  const recorders: EventRecorder[] = [];
  const runs = o.controllers.map(async (c) => {
    const logger = o.logger.with({ controller: c.name });
    const client = o.clientFor?.(c.name) ?? o.client;
    const eventRecorder = (component: string): EventRecorder => {
      const r = new EventRecorder({ client, component, host: o.host, onError: (err) => logger.debug('event dropped', { error: err }) });
      recorders.push(r);
      return r;
    };
    logger.info('starting controller');
    try {
      await c.start({ name: c.name, client, informers, eventRecorder, logger, metrics: o.metrics, signal, config: o.config, clock: o.clock });
    } catch (err) {
      logger.error('controller failed', { error: err instanceof Error ? err.stack : String(err) });
    }
  });
  // Every start() has registered what it asked for synchronously by now.
  informers.start(signal);
  await Promise.all(runs);
  await informers.shutdown();
  await Promise.all(recorders.map((r) => r.stop()));
}
