import type { Service } from 'kubernetes-types/core/v1.js';

export type Protocol = 'TCP' | 'UDP' | 'SCTP';

/**
 * One port of one Service, flattened for the proxy (upstream's
 * ServicePortName + BaseServicePortInfo). `key` names it everywhere:
 * `namespace/name:portName/protocol`.
 */
export interface ServicePort {
  key: string;
  namespace: string;
  name: string;
  portName: string;
  protocol: Protocol;
  /** Absent for headless services. */
  clusterIP?: string;
  port: number;
  nodePort?: number;
  externalIPs: readonly string[];
  /** `status.loadBalancer.ingress[].ip` of a LoadBalancer service. */
  loadBalancerIPs?: readonly string[];
  /** Set when sessionAffinity is ClientIP. */
  affinityTimeoutSeconds?: number;
  /** externalTrafficPolicy: Local (node ports and external IPs use this node's endpoints only). */
  externalLocal: boolean;
  /** internalTrafficPolicy: Local (the cluster IP uses this node's endpoints only). */
  internalLocal: boolean;
  /** `spec.healthCheckNodePort` of a LoadBalancer Service with externalTrafficPolicy Local. */
  healthCheckNodePort?: number;
}

/** One backend of a service port, from an EndpointSlice. */
export interface ServiceEndpoint {
  ip: string;
  port: number;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  nodeName?: string;
}

/** Upstream's default sessionAffinityConfig.clientIP.timeoutSeconds (3 hours). */
export const DEFAULT_AFFINITY_TIMEOUT_SECONDS = 10_800;

export function servicePortKey(namespace: string, name: string, portName: string, protocol: string): string {
  return `${namespace}/${name}:${portName}/${protocol}`;
}

/** The ports the proxy serves for a Service; ExternalName services have none. */
export function servicePortsFromService(svc: Service): ServicePort[] {
  const spec = svc.spec;
  if (!spec || spec.type === 'ExternalName') return [];
  const namespace = svc.metadata?.namespace ?? '';
  const name = svc.metadata?.name ?? '';
  const clusterIP = spec.clusterIP && spec.clusterIP !== 'None' ? spec.clusterIP : undefined;
  const affinity = spec.sessionAffinity === 'ClientIP' ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_TIMEOUT_SECONDS) : undefined;
  const external = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
  return (spec.ports ?? []).map((p) => {
    const protocol = (p.protocol ?? 'TCP') as Protocol;
    const portName = p.name ?? '';
    const sp: ServicePort = {
      key: servicePortKey(namespace, name, portName, protocol),
      namespace,
      name,
      portName,
      protocol,
      port: p.port,
      externalIPs: spec.externalIPs ?? [],
      externalLocal: spec.externalTrafficPolicy === 'Local',
      internalLocal: spec.internalTrafficPolicy === 'Local',
    };
    if (clusterIP) sp.clusterIP = clusterIP;
    if (external && p.nodePort) sp.nodePort = p.nodePort;
    const lbIPs = spec.type === 'LoadBalancer' ? (svc.status?.loadBalancer?.ingress ?? []).flatMap((i) => (i.ip ? [i.ip] : [])) : [];
    if (lbIPs.length > 0) sp.loadBalancerIPs = lbIPs;
    if (affinity !== undefined) sp.affinityTimeoutSeconds = affinity;
    if (spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local' && spec.healthCheckNodePort) sp.healthCheckNodePort = spec.healthCheckNodePort;
    return sp;
  });
}
