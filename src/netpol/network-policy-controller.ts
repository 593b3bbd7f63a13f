import type { Namespace, Node, Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { NAMESPACES, NETWORK_POLICIES, NODES, PODS } from '../api/resource-refs.js';
import { realClock, type Clock } from '../base/clock.js';
import { ChangeFlag } from '../base/change-flag.js';
import { exponentialBuckets, type Gauge, type Histogram, type MetricsRegistry } from '../base/metrics/registry.js';
import { SharedInformerFactory } from '../client/cache/shared-informer-factory.js';
import type { Client } from '../client/rest/client.js';
import type { Logger } from '../machinery/logger.js';
import { computePolicyChains, type PolicyChains } from './policy-rules.js';

/** Where computed chains go (iptables; a recorder in tests). */
export interface PolicyEnforcer {
  sync(chains: PolicyChains): Promise<void>;
  stop(): Promise<void>;
}

export interface NetworkPolicyMetrics {
  syncDuration: Histogram;
  chains: Gauge;
}

/** kube-router's metric names for its policy controller. */
export function networkPolicyMetrics(registry: MetricsRegistry): NetworkPolicyMetrics {
  return {
    syncDuration: registry.histogram('kube_router_controller_iptables_sync_time', 'Time it took for the network policy controller to sync iptables, in seconds', [], exponentialBuckets(0.001, 2, 15)),
    chains: registry.gauge('kube_router_controller_policy_chains', 'Active network policy and pod firewall chains'),
  };
}

export interface NetworkPolicyControllerOptions {
  client: Client;
  enforcer: PolicyEnforcer;
  /** This node: its pods on its spec.podCIDRs are enforced. */
  nodeName: string;
  logger: Logger;
  metrics: NetworkPolicyMetrics;
  /** A full sync at least this often, even without changes (kube-router's --iptables-sync-period). */
  syncPeriodMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
}

/**
 * The network policy controller: informers on Pods, Namespaces,
 * NetworkPolicies and Nodes mark the state dirty; one loop computes every
 * chain from the caches and hands them to the enforcer (level-triggered: a
 * sync never depends on which change woke it). Stopping removes the rules.
 */
export class NetworkPolicyController {
  private readonly changes: ChangeFlag;
  private synced = false;
  private readonly clock: Clock;

  constructor(private readonly o: NetworkPolicyControllerOptions) {
    this.clock = o.clock ?? realClock;
    this.changes = new ChangeFlag(this.clock);
  }

  /** For /readyz: the rules of the current state have been programmed once. */
  healthy(): void {
    if (!this.synced) throw new Error('network policy rules not yet synced');
  }

  async run(signal: AbortSignal): Promise<void> {
    const informers = new SharedInformerFactory(this.o.client);
    const pods = informers.forResource<Pod>(PODS);
    const namespaces = informers.forResource<Namespace>(NAMESPACES);
    const policies = informers.forResource<NetworkPolicy>(NETWORK_POLICIES);
    const nodes = informers.forResource<Node>(NODES);
    const mark = (): void => this.changes.mark();
    const handler = { onAdd: mark, onUpdate: mark, onDelete: mark };
    pods.addEventHandler(handler);
    namespaces.addEventHandler(handler);
    policies.addEventHandler(handler);
    nodes.addEventHandler(handler);
    try {
      await informers.runWhileSynced(signal, async () => {
        this.o.logger.info('network policy caches synced', { node: this.o.nodeName });
        while (!signal.aborted) {
          await this.changes.wait(this.o.syncPeriodMs ?? 300_000, signal);
          if (signal.aborted) break;
          this.changes.take();
          const node = nodes.lister.list().find((n) => n.metadata?.name === this.o.nodeName);
          const nodeCIDRs = node?.spec?.podCIDRs ?? (node?.spec?.podCIDR ? [node.spec.podCIDR] : []);
          const chains = computePolicyChains({
            policies: policies.lister.list(),
            pods: pods.lister.list(),
            namespaces: namespaces.lister.list(),
            nodeName: this.o.nodeName,
            // a node without pod CIDRs has no CNI pod network (the kubelet writes its --pod-cidr there too): nothing to enforce
            podCIDRs: nodeCIDRs,
          });
          await this.sync(chains, signal);
        }
      });
    } finally {
      await this.o.enforcer.stop();
    }
  }

  private async sync(chains: PolicyChains, signal: AbortSignal): Promise<void> {
    const started = performance.now();
    try {
      await this.o.enforcer.sync(chains);
    } catch (err) {
      this.o.logger.error('syncing network policy rules failed', { error: err });
      await this.clock.sleep(this.o.retryPeriodMs ?? 1000, signal);
      this.changes.mark();
      return;
    }
    this.synced = true;
    this.o.metrics.syncDuration.observe({}, (performance.now() - started) / 1000);
    this.o.metrics.chains.set({}, chains.size);
  }
}
