import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ResolvConf } from '../../base/resolv-conf.js';

/** What a pod's resolv.conf holds (CRI's DNSConfig). */
export interface PodDnsConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

/** The kubelet's DNS settings (upstream's --cluster-dns, --cluster-domain, --resolv-conf). */
export interface KubeletDnsSettings {
  clusterDNS: readonly string[];
  clusterDomain: string;
  /** The node's resolv.conf, for the `Default` policy and the extra search domains. */
  host: ResolvConf;
}

/** A problem worth an Event on the pod, as upstream's kubelet records. */
export interface DnsWarning {
  reason: 'MissingClusterDNS' | 'DNSConfigForming';
  message: string;
}

/** Upstream's limits (validation.MaxDNSNameservers, MaxDNSSearchPaths, MaxDNSSearchListChars). */
const MAX_NAMESERVERS = 3;
const MAX_SEARCHES = 32;
const MAX_SEARCH_CHARS = 2048;

/**
 * A pod's DNS configuration as upstream's kubelet forms it (pkg/kubelet/network/dns):
 * `ClusterFirst` (not on the host network) and `ClusterFirstWithHostNet` use
 * the cluster DNS with the search path `<ns>.svc.<domain> svc.<domain>
 * <domain>` plus the node's, and `ndots:5`; `Default` (and `ClusterFirst` on
 * the host network, or without --cluster-dns) use the node's resolv.conf;
 * `None` starts empty. `dnsConfig` is then merged in: nameservers and search
 * domains appended without duplicates, options overriding by name.
 */
export function podDnsConfig(pod: Pod, s: KubeletDnsSettings): { config: PodDnsConfig; warnings: DnsWarning[] } {
  const warnings: DnsWarning[] = [];
  const policy = pod.spec?.dnsPolicy ?? 'ClusterFirst';
  const hostNetwork = pod.spec?.hostNetwork === true;
  let kind: 'cluster' | 'host' | 'none' = policy === 'None' ? 'none' : policy === 'ClusterFirstWithHostNet' || (policy === 'ClusterFirst' && !hostNetwork) ? 'cluster' : 'host';
  if (kind === 'cluster' && s.clusterDNS.length === 0) {
    warnings.push({ reason: 'MissingClusterDNS', message: `kubelet does not have ClusterDNS IP configured and cannot create Pod using "${policy}" policy. Falling back to "Default" policy.` });
    kind = 'host';
  }
  let config: PodDnsConfig;
  if (kind === 'cluster') {
    const domain = s.clusterDomain;
    const ns = pod.metadata?.namespace ?? 'default';
    config = { servers: [...s.clusterDNS], searches: [`${ns}.svc.${domain}`, `svc.${domain}`, domain, ...s.host.searches], options: ['ndots:5'] };
  } else if (kind === 'host') {
    config = { servers: [...s.host.nameservers], searches: [...s.host.searches], options: [...s.host.options] };
  } else {
    config = { servers: [], searches: [], options: [] };
  }
  const extra = pod.spec?.dnsConfig;
  if (extra) {
    config = {
      servers: unique([...config.servers, ...(extra.nameservers ?? [])]),
      searches: unique([...config.searches, ...(extra.searches ?? [])]),
      options: mergeOptions(config.options, (extra.options ?? []).map((o) => (o.value !== undefined ? `${o.name}:${o.value}` : (o.name ?? '')))),
    };
  }
  return { config: fitLimits(config, warnings), warnings };
}

function unique(list: string[]): string[] {
  return [...new Set(list.filter((x) => x !== ''))];
}

/** Options by name (`ndots:5` is named `ndots`); later ones override earlier ones in place. */
function mergeOptions(base: string[], extra: string[]): string[] {
  const byName = new Map<string, string>();
  for (const o of [...base, ...extra]) if (o !== '') byName.set(o.split(':')[0], o);
  return [...byName.values()];
}

function fitLimits(c: PodDnsConfig, warnings: DnsWarning[]): PodDnsConfig {
  let servers = c.servers;
  if (servers.length > MAX_NAMESERVERS) {
    servers = servers.slice(0, MAX_NAMESERVERS);
    warnings.push({ reason: 'DNSConfigForming', message: `Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: ${servers.join(' ')}` });
  }
  let searches = c.searches.map((d) => d.replace(/\.$/, ''));
  if (searches.length > MAX_SEARCHES || searches.join(' ').length > MAX_SEARCH_CHARS) {
    const kept: string[] = [];
    let chars = 0;
    for (const d of searches) {
      if (kept.length === MAX_SEARCHES || chars + d.length + (kept.length ? 1 : 0) > MAX_SEARCH_CHARS) break;
      chars += d.length + (kept.length ? 1 : 0);
      kept.push(d);
    }
    searches = kept;
    warnings.push({ reason: 'DNSConfigForming', message: `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${searches.join(' ')}` });
  }
  return { servers, searches, options: c.options };
}
