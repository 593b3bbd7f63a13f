import type { RestClient } from '../../client/rest/rest-client.js';

export interface ResolvedType {
  /** `deployments.apps`, or `pods` for the core group. */
  qualified: string;
  namespaced: boolean;
}

interface DiscoveryList {
  items?: {
    metadata?: { name?: string };
    versions?: { resources?: { resource: string; scope: string; singularResource?: string; shortNames?: string[]; responseKind?: { kind?: string } }[] }[];
  }[];
}

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/**
 * What kubectl's RESTMapper does, from aggregated discovery (`/api`, `/apis`):
 * a plural, singular, kind or short name (optionally `.group`) to the
 * resource and its scope. The core group wins ties, as kubectl's order does.
 */
export async function resolveResourceType(rest: RestClient, word: string): Promise<ResolvedType | undefined> {
  const lower = word.toLowerCase();
  const dot = lower.indexOf('.');
  const [name, group] = dot >= 0 ? [lower.slice(0, dot), lower.slice(dot + 1)] : [lower, undefined];
  for (const root of ['/api', '/apis']) {
    const list = await rest.request<DiscoveryList>({ method: 'GET', path: root, headers: { Accept: AGGREGATED } });
    for (const g of list.items ?? []) {
      const groupName = g.metadata?.name ?? '';
      if (group !== undefined && groupName !== group) continue;
      for (const v of g.versions ?? []) {
        for (const r of v.resources ?? []) {
          const names = [r.resource, r.singularResource, r.responseKind?.kind?.toLowerCase(), ...(r.shortNames ?? [])];
          if (names.includes(name)) return { qualified: groupName ? `${r.resource}.${groupName}` : r.resource, namespaced: r.scope === 'Namespaced' };
        }
      }
    }
  }
  return undefined;
}
