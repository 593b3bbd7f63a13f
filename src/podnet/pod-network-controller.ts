import type { Node } from 'kubernetes-types/core/v1.js';
import { NODES } from '../api/resource-refs.js';
import { realClock, type Clock } from '../base/clock.js';
import { ChangeFlag } from '../base/change-flag.js';
import { setSysctl, type Iptables } from '../base/iptables-runner.js';
import { SharedInformerFactory } from '../client/cache/shared-informer-factory.js';
import type { Client } from '../client/rest/client.js';
import type { Logger } from '../machinery/logger.js';
import { desiredRoutes, type PodRoute } from './host-routes.js';
import { masqueradeRestore, POSTROUTING_JUMP } from './masquerade-rules.js';
import type { RouteTable } from './route-table.js';

export interface PodNetworkControllerOptions {
  client: Client;
  routes: RouteTable;
  /** Masquerade rules for pod traffic (absent: leave NAT to the CNI plugin). */
  iptables?: Iptables;
  /** The range every node's pod CIDR comes from (the controller manager's --cluster-cidr). */
  clusterCIDR: string;
  /** This node: the others' pod CIDRs get routes. */
  nodeName: string;
  logger: Logger;
  /** Re-check the routes this often even without changes (someone may have removed one). */
  resyncPeriodMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
}

const same = (a: PodRoute, b: PodRoute): boolean => a.dst === b.dst && a.via === b.via;

/**
 * The pod network between nodes, as flannel's host-gw backend: an informer
 * on Nodes marks the state dirty and one loop makes this node's routes to
 * the other nodes' pod CIDRs (through their InternalIPs) match the Nodes —
 * added, changed when a node's address moves, removed when it leaves. It
 * sets net.ipv4.ip_forward and keeps pod-to-pod traffic un-NATed. Routes
 * stay when it stops (as flannel's), so a restart does not cut pods off.
 */
export class PodNetworkController {
  private readonly changes: ChangeFlag;
  private synced = false;
  private prepared = false;
  private readonly clock: Clock;

  constructor(private readonly o: PodNetworkControllerOptions) {
    this.clock = o.clock ?? realClock;
    this.changes = new ChangeFlag(this.clock);
  }

  /** For /readyz: the routes of the current state are in place. */
  healthy(): void {
    if (!this.synced) throw new Error('pod network routes not yet synced');
  }

  async run(signal: AbortSignal): Promise<void> {
    const informers = new SharedInformerFactory(this.o.client);
    const nodes = informers.forResource<Node>(NODES);
    const mark = (): void => this.changes.mark();
    nodes.addEventHandler({ onAdd: mark, onUpdate: mark, onDelete: mark });
    await informers.runWhileSynced(signal, async () => {
      while (!signal.aborted) {
        await this.changes.wait(this.o.resyncPeriodMs ?? 60_000, signal);
        if (signal.aborted) break;
        this.changes.take();
        try {
          await this.sync(desiredRoutes(nodes.lister.list(), this.o.nodeName));
          this.synced = true;
        } catch (err) {
          this.o.logger.error('syncing pod network routes failed', { error: err });
          await this.clock.sleep(this.o.retryPeriodMs ?? 1000, signal);
          this.changes.mark();
        }
      }
    });
  }

  /** Makes the routes (and, once, the forwarding sysctl and masquerade rules) match `desired`. */
  async sync(desired: readonly PodRoute[]): Promise<void> {
    if (!this.prepared) await this.prepare();
    if (this.o.iptables) await this.o.iptables.ensureJump(POSTROUTING_JUMP);
    const current = await this.o.routes.list();
    for (const r of current) {
      if (desired.some((d) => same(d, r))) continue;
      await this.o.routes.remove(r);
      this.o.logger.info('removed pod network route', { dst: r.dst, via: r.via });
    }
    for (const r of desired) {
      if (current.some((c) => same(c, r))) continue;
      await this.o.routes.replace(r);
      this.o.logger.info('added pod network route', { dst: r.dst, via: r.via });
    }
  }

  private async prepare(): Promise<void> {
    if (!(await setSysctl('net/ipv4/ip_forward', '1'))) this.o.logger.warn('cannot set net.ipv4.ip_forward: pods on other nodes will not be reached');
    if (this.o.iptables) {
      const randomFully = await this.o.iptables.hasRandomFully().catch(() => false);
      await this.o.iptables.ensureJump(POSTROUTING_JUMP);
      await this.o.iptables.restore(masqueradeRestore(this.o.clusterCIDR, randomFully));
    }
    this.prepared = true;
  }
}
