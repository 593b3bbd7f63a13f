import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Client } from '../../client/rest/index.js';
import { isConflict, isNotFound } from '../../client/rest/index.js';
import { realClock, type Clock } from '../../base/clock.js';
import type { Logger } from '../../machinery/logger.js';
import { ATTR } from '../../trace/attributes.js';
import { inRootSpan } from '../../trace/spans.js';
import { LEASES } from '../../api/resource-refs.js';

export interface LeaseRenewerOptions {
  client: Client;
  nodeName: string;
  /** The Node's uid, so the Lease is garbage-collected with the Node. */
  nodeUid?: string;
  logger: Logger;
  /** Upstream: 10 s renewals of a 40 s lease. */
  renewIntervalMs?: number;
  leaseDurationSeconds?: number;
  /** Time and waits (default the real clock). */
  clock?: Clock;
}

/** MicroTime as the API expects it. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/** The node heartbeat: a Lease in kube-node-lease named after the node, renewed on a timer. */
export class LeaseRenewer {
  constructor(private readonly opts: LeaseRenewerOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const every = this.opts.renewIntervalMs ?? 10_000;
    while (!signal.aborted) {
      try {
        // the heartbeat is the kubelet's own timer: each renewal is a trace of its own
        await inRootSpan(`renew lease ${this.opts.nodeName}`, { hop: 'heartbeat', initiator: 'timer', attributes: { [ATTR.node]: this.opts.nodeName } }, () => this.renew(signal));
      } catch (err) {
        if (!signal.aborted) this.opts.logger.warn('lease renewal failed', { error: err instanceof Error ? err.message : String(err) });
      }
      await (this.opts.clock ?? realClock).sleep(every, signal);
    }
  }

  async renew(signal?: AbortSignal): Promise<Lease> {
    const leases = this.opts.client.resource<Lease>(LEASES).namespace('kube-node-lease');
    const spec = { holderIdentity: this.opts.nodeName, leaseDurationSeconds: this.opts.leaseDurationSeconds ?? 40, renewTime: microTime((this.opts.clock ?? realClock).now()) };
    for (let attempt = 0; ; attempt++) {
      let existing: Lease | undefined;
      try {
        existing = await leases.get(this.opts.nodeName, { signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      try {
        if (!existing) {
          return await leases.create({
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: {
              name: this.opts.nodeName,
              namespace: 'kube-node-lease',
              ...(this.opts.nodeUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.opts.nodeName, uid: this.opts.nodeUid }] } : {}),
            },
            spec,
          }, { signal });
        }
        return await leases.update({ ...existing, spec: { ...existing.spec, ...spec } }, { signal });
      } catch (err) {
        if (!isConflict(err) || attempt >= 3) throw err;
      }
    }
  }
}
