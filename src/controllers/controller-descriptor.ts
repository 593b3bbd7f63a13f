import type { Client } from '../client/rest/client.js';
import type { SharedInformerFactory } from '../client/cache/shared-informer-factory.js';
import type { EventRecorder } from '../client/events/event-recorder.js';
import type { Logger } from '../machinery/logger.js';
import type { MetricsRegistry } from '../machinery/metrics/registry.js';

/** Makes an event recorder reporting as `component` (e.g. `deployment-controller`). */
export type EventRecorderFactory = (component: string) => EventRecorder;

/** What the controller manager hands every controller it starts. */
export interface ControllerContext {
  /** Shared by all controllers of the process (one connection pool and rate limiter). */
  client: Client;
  /**
   * Shared informers: ask for them, then call `informers.start(signal)` (idempotent;
   * the manager also calls it once every controller's start() has begun).
   */
  informers: SharedInformerFactory;
  /** Recorders are flushed by the manager on shutdown. */
  eventRecorder: EventRecorderFactory;
  logger: Logger;
  /** Served on the controller manager's /metrics; pass to `Controller` for workqueue_* metrics. */
  metrics: MetricsRegistry;
  /** Aborts when leadership is lost or the process stops. */
  signal: AbortSignal;
}

/**
 * One controller of `skiff controller-manager`. Each folder
 * `src/controllers/<name>/index.ts` exports one as `controller`; the manager
 * finds them by reading the folder, so adding a controller edits nothing else.
 */
export interface ControllerDescriptor {
  /** As in `--controllers` (upstream's names: `deployment`, `replicaset`, `garbagecollector`, …). */
  name: string;
  /** Off unless named explicitly in `--controllers` (default: on). */
  disabledByDefault?: boolean;
  /** Runs until ctx.signal aborts, then resolves once in-flight work has finished. */
  start(ctx: ControllerContext): Promise<void>;
}
