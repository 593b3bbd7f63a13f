import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { asKind } from '../../api/object.js';
import { badRequest } from '../../machinery/api-error.js';
import type { ApiRegistry } from '../api-registry.js';

export interface KubeletTarget {
  host: string;
  port: number;
  pod: Pod;
}

/** Where the kubelet running a pod listens: its node's InternalIP and daemon endpoint port. */
export async function locateKubelet(registry: ApiRegistry, namespace: string, name: string): Promise<KubeletTarget> {
  const pod = asKind<Pod>(await registry.lookup('', 'v1', 'pods')!.get(namespace, name)) as Pod;
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const node = asKind<Node>(await registry.lookup('', 'v1', 'nodes')!.get('', nodeName)) as Node;
  return { ...locateKubeletOnNode(node), pod };
}

/** A node's kubelet endpoint: its InternalIP (else Hostname) and daemon endpoint port. */
export function locateKubeletOnNode(node: Node): { host: string; port: number } {
  const addresses = node.status?.addresses ?? [];
  const host = addresses.find((a) => a.type === 'InternalIP')?.address ?? addresses.find((a) => a.type === 'Hostname')?.address ?? node.metadata?.name ?? '';
  const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 10250;
  return { host, port };
}

/** The container a request means: the one named, or the only one; upstream's errors otherwise. */
export function containerFor(pod: Pod, requested: string | null): string {
  const names = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []), ...(pod.spec?.ephemeralContainers ?? [])].map((c) => c.name);
  const name = pod.metadata?.name ?? '';
  if (requested) {
    if (!names.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  const main = (pod.spec?.containers ?? []).map((c) => c.name);
  if (main.length === 1) return main[0];
  throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${main.join(' ')}]`);
}
