import type { ContainerImage, Node } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../client/rest/index.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../client/rest/index.js';
import { realClock, type Clock } from '../../base/clock.js';
import type { Logger } from '../../machinery/logger.js';
import type { MachineInfo } from './machine-info.js';
import { initialNode, nodeLabels, nodeStatus, statusChanged, type NodeConfig, type NodePressure } from './node-status.js';
import { ATTR } from '../../trace/attributes.js';
import { inRootSpan } from '../../trace/spans.js';
import { NODES } from '../../api/resource-refs.js';

export interface NodeStatusReporterOptions {
  client: Client;
  config: NodeConfig;
  measure: () => MachineInfo;
  /** The node's images for `status.images` (upstream keeps the 50 largest); absent, the field is left as it was. */
  images?: () => ContainerImage[];
  logger: Logger;
  /** How often to measure (upstream nodeStatusUpdateFrequency: 10 s). */
  checkIntervalMs?: number;
  /** Report even without changes this often (upstream nodeStatusReportFrequency: 5 min). */
  reportIntervalMs?: number;
  /** Time and waits (default the real clock). */
  clock?: Clock;
  /** The pressure conditions that are True (the eviction manager's); absent, all are False. */
  pressure?: () => NodePressure;
}

/**
 * Registers the Node and keeps its status current: measured every
 * `checkIntervalMs`, written when it changed or when `reportIntervalMs` has
 * passed. The Lease, not this status, is the liveness heartbeat.
 */
export class NodeStatusReporter {
  private lastReported?: Node['status'];
  private lastReportAt = 0;
  private readonly clock: Clock;

  constructor(private readonly opts: NodeStatusReporterOptions) {
    this.clock = opts.clock ?? realClock;
  }

  private get nodes() {
    return this.opts.client.resource<Node>(NODES);
  }

  /** Creates the Node, or adopts an existing one and merges our labels into it. */
  register(signal: AbortSignal): Promise<Node> {
    // the kubelet initiates its registration: the root of the Node's first trace
    return inRootSpan(`register node ${this.opts.config.nodeName}`, { hop: 'registration', initiator: 'internal', attributes: { [ATTR.node]: this.opts.config.nodeName } }, () => this.registerOnce(signal));
  }

  private async registerOnce(signal: AbortSignal): Promise<Node> {
    const info = this.opts.measure();
    const desired = initialNode(info, this.opts.config, new Date(this.clock.now()), this.opts.pressure?.());
    for (;;) {
      try {
        const created = await this.nodes.create(desired, { signal });
        this.opts.logger.info('registered node', { node: this.opts.config.nodeName });
        return this.writeStatus(created, signal, true);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      try {
        const existing = await this.nodes.get(this.opts.config.nodeName, { signal });
        const labels = { ...existing.metadata?.labels, ...nodeLabels(info, this.opts.config) };
        const updated = await this.nodes.update({ ...existing, metadata: { ...existing.metadata, labels } }, { signal });
        this.opts.logger.info('node already registered; adopted it', { node: this.opts.config.nodeName });
        return this.writeStatus(updated, signal, true);
      } catch (err) {
        if (!isConflict(err) && !isNotFound(err)) throw err;
      }
    }
  }

  /** Measures and reports until the signal aborts. */
  async run(signal: AbortSignal, beforeCheck?: () => Promise<void> | undefined): Promise<void> {
    const every = this.opts.checkIntervalMs ?? 10_000;
    while (!signal.aborted) {
      await this.clock.sleep(every, signal);
      if (signal.aborted) break;
      try {
        await beforeCheck?.();
        await this.sync(signal);
      } catch (err) {
        if (!signal.aborted) this.opts.logger.warn('node status update failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** One measurement and, if needed, one status write. */
  sync(signal?: AbortSignal): Promise<void> {
    // each check is the kubelet's own timer: a trace of its own (a GET, and a status write when something changed)
    return inRootSpan(`node status check ${this.opts.config.nodeName}`, { hop: 'heartbeat', initiator: 'timer', attributes: { [ATTR.node]: this.opts.config.nodeName } }, async () => {
      const node = await this.nodes.get(this.opts.config.nodeName, { signal });
      await this.writeStatus(node, signal, false);
    });
  }

  private async writeStatus(node: Node, signal: AbortSignal | undefined, force: boolean): Promise<Node> {
    let current = node;
    for (let attempt = 0; ; attempt++) {
      const status = nodeStatus(this.opts.measure(), this.opts.config, current.status, new Date(this.clock.now()), this.opts.pressure?.());
      if (this.opts.images) status.images = this.opts.images();
      const due = this.clock.now() - this.lastReportAt >= (this.opts.reportIntervalMs ?? 5 * 60_000);
      if (!force && !due && !statusChanged(this.lastReported, status)) return current;
      try {
        const written = await this.nodes.updateStatus({ ...current, status }, { signal });
        this.lastReported = status;
        this.lastReportAt = this.clock.now();
        return written;
      } catch (err) {
        if (!isConflict(err) || attempt >= 5) throw err;
        current = await this.nodes.get(this.opts.config.nodeName, { signal });
      }
    }
  }
}
