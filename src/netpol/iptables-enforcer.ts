import { setSysctl, type Iptables, type Jump } from '../base/iptables-runner.js';
import type { Logger } from '../machinery/logger.js';
import { isNetworkPolicyChain, KUBE_ROUTER_FORWARD, KUBE_ROUTER_INPUT } from './chain-names.js';
import { renderRestore, type PolicyChains } from './policy-rules.js';

/**
 * Jumps from the built-in chains into ours, kept first in each as kube-router
 * does: kube-proxy's KUBE-FORWARD accepts masqueraded (node port) traffic,
 * which must meet the policies before that.
 */
export const NETPOL_JUMPS: readonly Jump[] = [
  { table: 'filter', from: 'FORWARD', to: KUBE_ROUTER_FORWARD, comment: 'kube-router netpol - network policies of pod traffic', first: true },
  { table: 'filter', from: 'INPUT', to: KUBE_ROUTER_INPUT, comment: 'kube-router netpol - network policies of pod traffic to the node', first: true },
];

/**
 * Programs computed chains into the filter table: each sync rewrites every
 * chain of ours in one iptables-restore --noflush (atomic: a packet sees the
 * old rules or the new, never a mix) and deletes the chains no longer
 * computed; stop() removes the jumps and every chain of ours.
 */
export class IptablesEnforcer {
  private prepared = false;

  constructor(private readonly o: { iptables: Iptables; logger: Logger }) {}

  async sync(chains: PolicyChains): Promise<void> {
    if (!this.prepared) {
      this.prepared = true;
      // pod-to-pod traffic over the bridge reaches FORWARD only with br_netfilter's hook on
      if (!(await setSysctl('net/bridge/bridge-nf-call-iptables', '1'))) this.o.logger.warn('cannot set net.bridge.bridge-nf-call-iptables (br_netfilter not loaded?): traffic between pods of one bridge is not filtered');
    }
    // the chains exist before the jumps to them; the jumps are put back if someone removed them
    const existing = (await this.o.iptables.chains('filter')).filter(isNetworkPolicyChain);
    const stale = existing.filter((c) => !chains.has(c));
    await this.o.iptables.restore(renderRestore(chains, stale));
    for (const jump of NETPOL_JUMPS) await this.o.iptables.ensureJump(jump);
  }

  async stop(): Promise<void> {
    for (const jump of NETPOL_JUMPS) await this.o.iptables.deleteJump(jump);
    try {
      const ours = (await this.o.iptables.chains('filter')).filter(isNetworkPolicyChain);
      if (ours.length > 0) await this.o.iptables.restore(renderRestore(new Map(), ours));
    } catch (err) {
      this.o.logger.warn('cannot remove the network policy chains', { error: err });
    }
  }
}
