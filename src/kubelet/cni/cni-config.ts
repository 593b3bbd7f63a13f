import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PodNetworkOptions {
  /** The node's `spec.podCIDR`, e.g. `10.42.0.0/24`. */
  podCIDR: string;
  /** The Linux bridge the pods' veths join. */
  bridge?: string;
  /** host-local's allocation directory (defaults to CNI's /var/lib/cni/networks). */
  ipamDataDir?: string;
}

export const POD_NETWORK_NAME = 'skiff-pods';
export const CNI_CONFIG_FILE = '10-skiff.conflist';

/**
 * The pod network as one CNI conflist, like k3s's without flannel: a bridge
 * with host-local IPAM over the node's pod CIDR (the bridge is the pods'
 * gateway, so the host reaches every pod) and portmap for hostPort. Outbound
 * masquerade is one node-level rule (pod-masquerade.ts), not the bridge's
 * per-pod `ipMasq`.
 */
export function podNetworkConflist(o: PodNetworkOptions): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: POD_NETWORK_NAME,
    plugins: [
      {
        type: 'bridge',
        bridge: o.bridge ?? 'skiff0',
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: o.podCIDR }]],
          routes: [{ dst: '0.0.0.0/0' }],
          ...(o.ipamDataDir ? { dataDir: o.ipamDataDir } : {}),
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  }, null, 2);
}

/** Writes the pod network config into `confDir` atomically (the runtime watches the directory). */
export function writePodNetworkConfig(confDir: string, o: PodNetworkOptions): string {
  mkdirSync(confDir, { recursive: true });
  const path = join(confDir, CNI_CONFIG_FILE);
  writeFileSync(`${path}.tmp`, podNetworkConflist(o));
  renameSync(`${path}.tmp`, path);
  return path;
}
