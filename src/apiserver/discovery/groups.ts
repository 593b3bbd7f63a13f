import type { ResourceInfo } from '../../api/resource-info.js';
import { GROUP_ORDER } from '../../api/resources.js';
import { compareKubeAwareVersions } from '../../api/version-priority.js';

export interface GroupVersions {
  group: string;
  versions: { version: string; resources: ResourceInfo[] }[];
}

/** Served resources grouped by API group (core first) and version. */
export function servedGroups(resources: readonly ResourceInfo[]): GroupVersions[] {
  const groups = new Map<string, GroupVersions>();
  for (const r of resources) {
    let g = groups.get(r.group);
    if (!g) groups.set(r.group, (g = { group: r.group, versions: [] }));
    let v = g.versions.find((x) => x.version === r.version);
    if (!v) g.versions.push((v = { version: r.version, resources: [] }));
    v.resources.push(r);
  }
  // a group's versions by priority (the first is the preferred one), as upstream
  for (const g of groups.values()) g.versions.sort((a, b) => compareKubeAwareVersions(a.version, b.version));
  // built-in groups in their order, then the others (custom resources) by name
  const rank = (g: string) => (GROUP_ORDER.includes(g) ? GROUP_ORDER.indexOf(g) : GROUP_ORDER.length);
  return [...groups.values()].sort((a, b) => rank(a.group) - rank(b.group) || a.group.localeCompare(b.group));
}

/** Verbs of a subresource as upstream advertises them. */
export function subresourceVerbs(sub: string): string[] {
  switch (sub) {
    case 'status':
    case 'scale':
    case 'ephemeralcontainers':
      return ['get', 'patch', 'update'];
    case 'binding':
    case 'eviction':
    case 'token':
      return ['create'];
    case 'finalize':
      return ['update'];
    case 'exec':
    case 'attach':
    case 'portforward':
      return ['create', 'get'];
    case 'proxy':
      return ['create', 'delete', 'get', 'patch', 'update'];
    default:
      return ['get'];
  }
}

export function subresourceKind(r: ResourceInfo, sub: string): { group: string; version: string; kind: string } {
  if (sub === 'scale') return { group: 'autoscaling', version: 'v1', kind: 'Scale' };
  if (sub === 'binding') return { group: '', version: 'v1', kind: 'Binding' };
  if (sub === 'eviction') return { group: 'policy', version: 'v1', kind: 'Eviction' };
  if (sub === 'token') return { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
  const options: Record<string, string> = { exec: 'PodExecOptions', attach: 'PodAttachOptions', portforward: 'PodPortForwardOptions' };
  if (options[sub]) return { group: '', version: 'v1', kind: options[sub] };
  if (sub === 'proxy') return { group: '', version: 'v1', kind: `${r.kind}ProxyOptions` };
  return { group: r.group, version: r.version, kind: r.kind };
}
