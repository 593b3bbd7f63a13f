import { createHash } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** 16 base32 characters of sha256(text): a stable name suffix within iptables' 28-character chain names. */
function hash16(text: string): string {
  const bytes = createHash('sha256').update(text).digest();
  let out = '';
  let value = 0;
  let bits = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5 && out.length < 16) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length >= 16) break;
  }
  return out;
}

/** The top-level chains, jumped to from the built-in ones (kube-router's names, as k3s's embedded controller uses). */
export const KUBE_ROUTER_INPUT = 'KUBE-ROUTER-INPUT';
export const KUBE_ROUTER_FORWARD = 'KUBE-ROUTER-FORWARD';

export type Direction = 'ingress' | 'egress';

/** The firewall chain of one pod selected by some policy. */
export function podFirewallChain(namespace: string, name: string): string {
  return `KUBE-POD-FW-${hash16(`${namespace}/${name}`)}`;
}

/** The chain of one policy's rules in one direction, shared by every pod it selects. */
export function policyChain(namespace: string, name: string, direction: Direction): string {
  return `KUBE-NWPLCY-${hash16(`${namespace}/${name}/${direction}`)}`;
}

/** Chains this controller creates (and so deletes when unused). */
export function isNetworkPolicyChain(chain: string): boolean {
  return chain.startsWith('KUBE-POD-FW-') || chain.startsWith('KUBE-NWPLCY-') || chain === KUBE_ROUTER_INPUT || chain === KUBE_ROUTER_FORWARD;
}
