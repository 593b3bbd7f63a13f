import type { ResourceInfo } from '../../api/resource-info.js';
import { servedGroups, subresourceKind, subresourceVerbs } from './groups.js';

/** GET /api */
export function apiVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(group: string, versions: string[]) {
  const list = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions: list, preferredVersion: list[0] };
}

/** GET /apis */
export function apiGroupList(resources: readonly ResourceInfo[]) {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: servedGroups(resources)
      .filter((g) => g.group !== '')
      .map((g) => apiGroup(g.group, g.versions.map((v) => v.version))),
  };
}

/** GET /apis/{group} */
export function apiGroupDocument(group: string, resources: readonly ResourceInfo[]) {
  const g = servedGroups(resources).find((x) => x.group === group && group !== '');
  if (!g) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g.group, g.versions.map((v) => v.version)) };
}

/** GET /api/v1 or /apis/{group}/{version} */
export function apiResourceList(group: string, version: string, served: readonly ResourceInfo[]) {
  const g = servedGroups(served).find((x) => x.group === group);
  const v = g?.versions.find((x) => x.version === version);
  if (!v) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const r of v.resources) {
    const entry: Record<string, unknown> = {
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
    };
    if (r.shortNames.length) entry.shortNames = r.shortNames;
    if (r.categories.length) entry.categories = r.categories;
    entry.storageVersionHash = storageVersionHash(r.group, r.version, r.kind);
    resources.push(entry);
    for (const sub of r.subresources) {
      const k = subresourceKind(r, sub);
      const subEntry: Record<string, unknown> = {
        name: `${r.resource}/${sub}`,
        singularName: '',
        namespaced: r.namespaced,
        kind: k.kind,
        verbs: subresourceVerbs(sub),
      };
      // a subresource of another group names both its group and version (kubectl drain looks for pods/eviction's)
      if (k.group !== r.group || k.version !== r.version) {
        subEntry.group = k.group;
        subEntry.version = k.version;
      }
      resources.push(subEntry);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

/** A stable short hash of group/version/kind, as upstream's storageVersionHash. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  let h = 2166136261;
  for (const ch of `${group}/${version}/${kind}`) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return Buffer.from(h.toString(16).padStart(8, '0')).toString('base64').slice(0, 11);
}
