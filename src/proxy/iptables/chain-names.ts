import { createHash } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (standard alphabet) of the first `chars` characters' worth of `bytes`. */
function base32Prefix(bytes: Uint8Array, chars: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
    if (out.length >= chars) break;
  }
  return out;
}

/** 16 base32 characters of sha256(text): chain names stay within iptables' 28-character limit. */
function hash16(text: string): string {
  return base32Prefix(createHash('sha256').update(text).digest(), 16);
}

/**
 * The name of a service port as upstream prints it in comments and hashes it
 * for chain names: `ns/name:port`, or `ns/name` for an unnamed port.
 */
export function servicePortName(namespace: string, name: string, portName: string): string {
  return `${namespace}/${name}${portName ? `:${portName}` : ''}`;
}

/** The per-service-port chains, named as upstream so existing tooling recognises them. */
export interface ServiceChains {
  /** Endpoints for Cluster traffic policy. */
  cluster: string;
  /** This node's endpoints, for Local traffic policies. */
  local: string;
  /** External destinations (node ports, external IPs, load balancer IPs). */
  external: string;
}

export function serviceChains(portName: string, protocol: string): ServiceChains {
  const h = hash16(portName + protocol.toLowerCase());
  return { cluster: `KUBE-SVC-${h}`, local: `KUBE-SVL-${h}`, external: `KUBE-EXT-${h}` };
}

/** The KUBE-SEP chain of one endpoint (`ip:port`) of a service port. */
export function endpointChain(portName: string, protocol: string, endpoint: string): string {
  return `KUBE-SEP-${hash16(portName + protocol.toLowerCase() + endpoint)}`;
}

const SERVICE_CHAIN_PREFIXES = ['KUBE-SVC-', 'KUBE-SVL-', 'KUBE-EXT-', 'KUBE-FW-', 'KUBE-SEP-'];

/** Per-service chains (ours to delete when unused); the fixed top-level chains are not. */
export function isServiceChain(chain: string): boolean {
  return SERVICE_CHAIN_PREFIXES.some((p) => chain.startsWith(p));
}
