import type { ResourceInfo } from '../../api/resource-info.js';
import { servedGroups, subresourceKind, subresourceVerbs, type GroupVersions } from './groups.js';

/**
 * Aggregated discovery (apidiscovery.k8s.io v2 and v2beta1): every group,
 * version and resource in one document, for `/api` (core) or `/apis` (the rest).
 */
export function aggregatedDiscovery(legacy: boolean, version: 'v2' | 'v2beta1', resources: readonly ResourceInfo[], isStale?: (group: string, version: string) => boolean) {
  const groups = servedGroups(resources).filter((g) => (g.group === '') === legacy);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((g) => groupDiscovery(g, isStale)),
  };
}

function groupDiscovery(g: GroupVersions, isStale?: (group: string, version: string) => boolean) {
  return {
    metadata: g.group ? { name: g.group } : {},
    versions: g.versions.map((v) => ({
      version: v.version,
      // a version whose extension API server is down is listed as last seen, marked Stale (as upstream)
      freshness: isStale?.(g.group, v.version) ? 'Stale' : 'Current',
      resources: v.resources.map((r) => {
        const entry: Record<string, unknown> = {
          resource: r.resource,
          responseKind: { group: r.group, version: r.version, kind: r.kind },
          scope: r.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: r.singular,
          verbs: r.verbs,
        };
        if (r.shortNames.length) entry.shortNames = r.shortNames;
        if (r.categories.length) entry.categories = r.categories;
        if (r.subresources.length) {
          entry.subresources = r.subresources.map((sub) => ({
            subresource: sub,
            responseKind: subresourceKind(r, sub),
            verbs: subresourceVerbs(sub),
          }));
        }
        return entry;
      }),
    })),
  };
}
