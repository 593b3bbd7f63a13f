import type { Service } from 'kubernetes-types/core/v1.js';
import { isIP } from 'node:net';

/** SetDefaults_Service. Cluster IP allocation itself belongs to the API server. */
export function setServiceDefaults(svc: Service): void {
  const spec = (svc.spec ??= {});
  spec.sessionAffinity ||= 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && spec.sessionAffinityConfig?.clientIP?.timeoutSeconds === undefined) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  spec.type ||= 'ClusterIP';
  for (const port of spec.ports ?? []) {
    port.protocol ||= 'TCP';
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port;
  }
  const external = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
  if (external) spec.externalTrafficPolicy ||= 'Cluster';
  if (spec.internalTrafficPolicy === undefined && (external || spec.type === 'ClusterIP')) spec.internalTrafficPolicy = 'Cluster';
  if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
  setServiceIPFamilyDefaults(svc);
}

/**
 * Fills clusterIPs, ipFamilyPolicy and ipFamilies from a set clusterIP, as
 * upstream's allocator does. applyDefaults calls it; the API server calls it
 * again after allocating a cluster IP.
 */
export function setServiceIPFamilyDefaults(svc: Service): void {
  const spec = svc.spec;
  if (!spec || spec.type === 'ExternalName' || !spec.clusterIP) return;
  if (!spec.clusterIPs?.length) spec.clusterIPs = [spec.clusterIP];
  if (spec.clusterIP === 'None') {
    // Headless services: upstream picks RequireDualStack only without a selector on dual-stack clusters; skiff is single-stack.
    spec.ipFamilyPolicy ??= 'SingleStack';
    if (!spec.ipFamilies?.length) spec.ipFamilies = ['IPv4'];
    return;
  }
  spec.ipFamilyPolicy ??= 'SingleStack';
  if (!spec.ipFamilies?.length) spec.ipFamilies = spec.clusterIPs.map((ip) => (isIP(ip) === 6 ? 'IPv6' : 'IPv4'));
}
