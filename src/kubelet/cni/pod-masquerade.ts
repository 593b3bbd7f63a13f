import { execFileSync } from 'node:child_process';
import { ExecIptables, type Iptables } from '../../base/iptables-runner.js';

/** The nat chain holding the pod network's outbound masquerade. */
export const POD_MASQ_CHAIN = 'SKIFF-POD-MASQ';

function jump(podCIDR: string) {
  return { table: 'nat' as const, from: 'POSTROUTING', to: POD_MASQ_CHAIN, extra: ['-s', podCIDR], comment: 'skiff pod network: masquerade traffic leaving it' };
}

/** The chain's rules: traffic within the pod network and multicast keep their source; the rest leaves with the node's address. */
export function podMasqueradeRules(podCIDR: string): string {
  return [
    '*nat',
    `:${POD_MASQ_CHAIN} - [0:0]`,
    `-A ${POD_MASQ_CHAIN} -d ${podCIDR} -j RETURN`,
    `-A ${POD_MASQ_CHAIN} -d 224.0.0.0/4 -j RETURN`,
    `-A ${POD_MASQ_CHAIN} -j MASQUERADE`,
    'COMMIT',
    '',
  ].join('\n');
}

/**
 * Outbound masquerade for the whole pod CIDR as one node-level rule, as k3s
 * (flannel) and kubenet do, instead of the bridge plugin's `ipMasq`, which
 * adds and removes an iptables chain per pod: several iptables runs under
 * the host-wide xtables lock in every sandbox's CNI ADD and DEL, which
 * serialised pod starts and grew slower with every pod. Idempotent.
 */
export async function ensurePodMasquerade(podCIDR: string, iptables: Iptables = new ExecIptables(), appendJump = appendPostrouting): Promise<void> {
  await iptables.restore(podMasqueradeRules(podCIDR));
  // appended, not inserted first: the multi-node pod network's chain (SKIFF-POSTRTG, pod-to-pod across nodes un-NATed) must come before it
  appendJump(['-s', podCIDR, '-m', 'comment', '--comment', jump(podCIDR).comment, '-j', POD_MASQ_CHAIN]);
}

function appendPostrouting(rule: string[]): void {
  try {
    execFileSync('iptables', ['-w', '-t', 'nat', '-C', 'POSTROUTING', ...rule], { stdio: 'ignore' });
  } catch {
    execFileSync('iptables', ['-w', '-t', 'nat', '-A', 'POSTROUTING', ...rule], { stdio: ['ignore', 'ignore', 'pipe'] });
  }
}

/** Removes the jump for `podCIDR` (the chain stays, empty of traffic, for the next start). */
export async function removePodMasquerade(podCIDR: string, iptables: Iptables = new ExecIptables()): Promise<void> {
  await iptables.deleteJump(jump(podCIDR));
}
