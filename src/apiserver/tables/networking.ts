import type { Ingress, IngressClass, IngressRule, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { formatLabelSelector } from '../../machinery/labels/index.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './columns.js';
import { column, convertor } from './table-convertor.js';

/** Upstream's formatHosts: up to three hosts, `*` when none. */
function formatHosts(rules: readonly IngressRule[]): string {
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === max) more = true;
    if (!more && rule.host) hosts.push(rule.host);
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - max} more...` : hosts.join(',');
}

export const ingressTable = convertor<Ingress>(
  [
    NAME_COLUMN,
    column('Class', 'string', 'The name of the IngressClass resource that should be used'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    AGE_COLUMN,
  ],
  (ing, now) => [
    ing.metadata?.name ?? '',
    ing.spec?.ingressClassName ?? '<none>',
    formatHosts(ing.spec?.rules ?? []),
    (ing.status?.loadBalancer?.ingress ?? []).flatMap((i) => [i.ip, i.hostname].filter((x): x is string => !!x)).join(','),
    (ing.spec?.tls ?? []).length > 0 ? '80, 443' : '80',
    translateTimestampSince(ing.metadata?.creationTimestamp, now),
  ],
);

export const ingressClassTable = convertor<IngressClass>(
  [
    NAME_COLUMN,
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    AGE_COLUMN,
  ],
  (ic, now) => {
    const p = ic.spec?.parameters;
    const parameters = p ? `${p.kind}${p.apiGroup ? `.${p.apiGroup}` : ''}/${p.name}` : '<none>';
    return [ic.metadata?.name ?? '', ic.spec?.controller ?? '', parameters, translateTimestampSince(ic.metadata?.creationTimestamp, now)];
  },
);

export const networkPolicyTable = convertor<NetworkPolicy>(
  [
    NAME_COLUMN,
    column('Pod-Selector', 'string', 'Selects the pods to which this NetworkPolicy object applies. The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.'),
    AGE_COLUMN,
  ],
  (np, now) => [np.metadata?.name ?? '', formatLabelSelector(np.spec?.podSelector), translateTimestampSince(np.metadata?.creationTimestamp, now)],
);
