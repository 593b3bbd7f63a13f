import type { Pod } from 'kubernetes-types/core/v1.js';

/** The pod's primary IPv4 address (skiff's services are single-stack IPv4). */
export function podIPv4(pod: Pod): string | undefined {
  const candidates = [pod.status?.podIP, ...(pod.status?.podIPs ?? []).map((p) => p.ip)];
  return candidates.find((ip): ip is string => !!ip && !ip.includes(':'));
}

export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * Whether a pod gets an endpoint at all (upstream's ShouldPodBeInEndpoints):
 * it must have an IP and not have finished; terminating pods count only when
 * `includeTerminating` (EndpointSlices always include them, marked as such).
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  if (!podIPv4(pod)) return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp) return false;
  return true;
}

/** Upstream sets an endpoint's hostname only for pods that name this service as their subdomain. */
export function endpointHostname(pod: Pod, serviceName: string, serviceNamespace: string): string | undefined {
  const hostname = pod.spec?.hostname;
  if (!hostname || pod.spec?.subdomain !== serviceName || pod.metadata?.namespace !== serviceNamespace) return undefined;
  return hostname;
}
