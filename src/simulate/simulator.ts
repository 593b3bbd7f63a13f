import { realClock, type Clock } from '../base/clock.js';
import type { Client } from '../client/rest/client.js';
import type { Logger } from '../machinery/logger.js';
import { NodeHeartbeats, type NodeHeartbeatsOptions } from './node-heartbeats.js';
import { NodeWriter } from './node-writer.js';
import type { PodTiming } from './pod-actions.js';
import { PodLifecycle, type PodLifecycleStats } from './pod-lifecycle.js';
import { DEFAULT_SHAPE, type SimulatedNodeShape } from './simulated-node.js';
import { WriteLimiter } from './write-limiter.js';

export interface SimulatorOptions {
  /** Lists and watches nodes and pods as itself; writes impersonating each node (see NodeWriter). */
  client: Client;
  nodes: number;
  shape?: Partial<SimulatedNodeShape>;
  timing?: Partial<PodTiming>;
  /** Writes in flight at most, for heartbeats and for pods each. */
  concurrency?: number;
  leaseDurationSeconds?: number;
  statusReportIntervalMs?: number;
  logger: Logger;
  clock?: Clock;
}

export const DEFAULT_TIMING: PodTiming = { startDelayMs: 0, jobPodDurationMs: 5_000 };

/**
 * kwok's idea inside skiff: N nodes without kubelets, whose heartbeats and
 * pod lifecycle are simulated through the API, so the control plane under
 * test (scheduler, controllers, API server) is the real one.
 */
export class Simulator {
  readonly names: readonly string[];
  private readonly heartbeats: NodeHeartbeats;
  private readonly pods: PodLifecycle;
  private readonly logger: Logger;

  constructor(o: SimulatorOptions) {
    if (!Number.isInteger(o.nodes) || o.nodes < 1) throw new RangeError(`simulated nodes must be a whole number >= 1, got ${o.nodes}`);
    const shape = { ...DEFAULT_SHAPE, ...o.shape };
    this.names = Array.from({ length: o.nodes }, (_, i) => `${shape.prefix}${i}`);
    const writer = new NodeWriter(o.client);
    const concurrency = o.concurrency ?? 32;
    const clock = o.clock ?? realClock;
    this.logger = o.logger;
    const hb: NodeHeartbeatsOptions = {
      client: o.client,
      writer,
      limiter: new WriteLimiter(concurrency),
      names: this.names,
      shape,
      logger: o.logger,
      leaseDurationSeconds: o.leaseDurationSeconds ?? 40,
      statusReportIntervalMs: o.statusReportIntervalMs ?? 5 * 60_000,
      onResume: (node) => this.pods.resync(node),
      clock,
    };
    this.heartbeats = new NodeHeartbeats(hb);
    this.pods = new PodLifecycle({ client: o.client, writer, nodes: this.heartbeats, timing: { ...DEFAULT_TIMING, ...o.timing }, concurrency, logger: o.logger, clock });
  }

  stats(): { nodes: ReturnType<NodeHeartbeats['stats']>; pods: PodLifecycleStats } {
    return { nodes: this.heartbeats.stats(), pods: this.pods.stats() };
  }

  /** Registers the nodes, then keeps them beating and their pods moving until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const started = performance.now();
    await this.heartbeats.registerAll(signal);
    if (signal.aborted) return;
    this.logger.info('simulated nodes registered', { ms: Math.round(performance.now() - started), ...this.heartbeats.stats() });
    await Promise.all([this.heartbeats.run(signal), this.pods.run(signal)]);
  }
}
