import type { IngressClass, NetworkPolicy } from 'kubernetes-types/networking/v1.js';

/** Upstream's SetDefaults_NetworkPolicy and _NetworkPolicyPort: TCP ports; policyTypes from the rules given. */
export function setNetworkPolicyDefaults(np: NetworkPolicy): void {
  const spec = (np.spec ??= { podSelector: {} });
  spec.podSelector ??= {};
  for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])]) {
    for (const port of ('ports' in rule ? rule.ports : undefined) ?? []) port.protocol ??= 'TCP';
  }
  if (!spec.policyTypes || spec.policyTypes.length === 0) {
    spec.policyTypes = ['Ingress', ...((spec.egress ?? []).length > 0 ? ['Egress'] : [])];
  }
}

/** Upstream's SetDefaults_IngressClass: parameters are cluster-scoped unless said otherwise. */
export function setIngressClassDefaults(ic: IngressClass): void {
  if (ic.spec?.parameters) ic.spec.parameters.scope ??= 'Cluster';
}
