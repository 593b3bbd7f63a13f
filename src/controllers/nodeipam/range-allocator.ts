import type { Node } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { EventRecorder } from '../../client/events/event-recorder.js';
import type { Client } from '../../client/rest/client.js';
import { isNotFound } from '../../client/rest/error-predicates.js';
import type { Logger } from '../../machinery/logger.js';
import { CidrRangeFullError, type CidrSet } from './cidr-set.js';
import { NODES } from '../../api/resource-refs.js';

export interface RangeAllocatorOptions {
  client: Client;
  nodes: Lister<Node>;
  cidrs: CidrSet;
  recorder: EventRecorder;
  logger: Logger;
}

/**
 * Upstream's range allocator: every node gets a `spec.podCIDR` (and
 * `podCIDRs`) from the cluster CIDR. Subnets nodes already have are taken
 * first (repair after a restart), none is handed out twice, and a deleted
 * node's subnet is released.
 */
export class RangeAllocator implements Reconciler {
  /** Node name → the subnet this allocator assigned or found on it. */
  private readonly assigned = new Map<string, string>();
  private repaired = false;

  constructor(private readonly o: RangeAllocatorOptions) {}

  /** Takes every subnet the (synced) cache shows on a node, before anything is handed out. */
  private repair(): void {
    this.repaired = true;
    for (const node of this.o.nodes.list()) {
      const cidr = node.spec?.podCIDR;
      if (!cidr) continue;
      if (this.o.cidrs.occupy(cidr)) this.assigned.set(node.metadata!.name!, cidr);
      else this.o.logger.warn('node pod CIDR is outside the cluster CIDR', { node: node.metadata?.name, podCIDR: cidr, clusterCIDR: this.o.cidrs.clusterCidr });
    }
  }

  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    if (!this.repaired) this.repair();
    const node = this.o.nodes.get(name);
    const mine = this.assigned.get(name);
    if (!node) {
      if (mine) {
        this.o.cidrs.release(mine);
        this.assigned.delete(name);
        this.o.logger.info('released node pod CIDR', { node: name, podCIDR: mine });
      }
      return;
    }
    const has = node.spec?.podCIDR;
    if (has) {
      // a subnet set by someone else (the kubelet's --pod-cidr) is taken too
      if (mine !== has && this.o.cidrs.occupy(has)) this.assigned.set(name, has);
      return;
    }
    let cidr = mine;
    if (!cidr) {
      try {
        cidr = this.o.cidrs.allocateNext();
      } catch (err) {
        if (!(err instanceof CidrRangeFullError)) throw err;
        this.o.recorder.event(node, 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
        return { requeueAfter: 30_000 };
      }
      this.assigned.set(name, cidr);
    }
    try {
      await this.o.client.resource<Node>(NODES).patch(name, { spec: { podCIDR: cidr, podCIDRs: [cidr] } }, 'merge', { signal });
      this.o.logger.info('assigned node pod CIDR', { node: name, podCIDR: cidr });
    } catch (err) {
      if (isNotFound(err)) return;
      // kept in `assigned`: the retry patches the same subnet, so a slow write never costs a second one
      throw err;
    }
  }
}
