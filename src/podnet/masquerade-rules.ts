import type { Jump } from '../base/iptables-runner.js';

/** The nat chain of pod traffic leaving the node (flannel's FLANNEL-POSTRTG). */
export const POSTROUTING_CHAIN = 'SKIFF-POSTRTG';

/** kube-proxy's masquerade mark (--iptables-masquerade-bit 14): such packets are its to SNAT. */
const KUBE_PROXY_MARK = '0x4000/0x4000';

export const POSTROUTING_JUMP: Jump = { table: 'nat', from: 'POSTROUTING', to: POSTROUTING_CHAIN, comment: 'skiff pod network masquerade' };

/**
 * The masquerade rules as flannel writes them for host-gw: pod-to-pod
 * traffic across nodes keeps its source address (the Kubernetes network
 * model: no NAT between pods), and ACCEPT here also keeps the CNI bridge's
 * own masquerade away from it; pod traffic leaving the cluster CIDR is
 * masqueraded; what kube-proxy marked is left to kube-proxy. The whole
 * chain is restored at once (iptables-restore --noflush).
 */
export function masqueradeRestore(clusterCIDR: string, randomFully: boolean): string {
  const c = POSTROUTING_CHAIN;
  return [
    '*nat',
    `:${c} - [0:0]`,
    `-A ${c} -m mark --mark ${KUBE_PROXY_MARK} -m comment --comment "kube-proxy will masquerade" -j RETURN`,
    `-A ${c} -s ${clusterCIDR} -d ${clusterCIDR} -m comment --comment "pod to pod: no NAT" -j ACCEPT`,
    `-A ${c} -s ${clusterCIDR} ! -d 224.0.0.0/4 -m comment --comment "pods leaving the cluster network" -j MASQUERADE${randomFully ? ' --random-fully' : ''}`,
    'COMMIT',
    '',
  ].join('\n');
}
