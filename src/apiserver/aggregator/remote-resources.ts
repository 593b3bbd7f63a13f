import type { ResourceInfo } from '../../api/resource-info.js';

interface APIResource {
  name?: string;
  singularName?: string;
  namespaced?: boolean;
  kind?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

/**
 * An extension API server's `APIResourceList` (its `/apis/<group>/<version>`)
 * as the registry's ResourceInfo, so discovery lists remote resources as it
 * lists its own; `x/y` entries become subresources of `x`. Anything that is not
 * an APIResourceList for this group/version is undefined.
 */
export function resourcesFromDiscovery(group: string, version: string, doc: unknown): ResourceInfo[] | undefined {
  const list = doc as { kind?: string; groupVersion?: string; resources?: APIResource[] } | null;
  if (!list || typeof list !== 'object' || !Array.isArray(list.resources)) return undefined;
  if (list.groupVersion !== undefined && list.groupVersion !== `${group}/${version}`) return undefined;
  const byName = new Map<string, ResourceInfo>();
  const subresources: [string, string][] = [];
  for (const r of list.resources) {
    if (!r || typeof r.name !== 'string' || !r.name) continue;
    const slash = r.name.indexOf('/');
    if (slash > 0) {
      subresources.push([r.name.slice(0, slash), r.name.slice(slash + 1)]);
      continue;
    }
    const kind = typeof r.kind === 'string' ? r.kind : '';
    byName.set(r.name, {
      group,
      version,
      kind,
      listKind: `${kind}List`,
      resource: r.name,
      singular: r.singularName || kind.toLowerCase(),
      namespaced: r.namespaced === true,
      shortNames: strings(r.shortNames),
      categories: strings(r.categories),
      subresources: [],
      verbs: strings(r.verbs),
    });
  }
  for (const [parent, sub] of subresources) byName.get(parent)?.subresources.push(sub);
  return [...byName.values()];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
