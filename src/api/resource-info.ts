/** One served resource: the single source for routing, discovery, storage keys and tables. */
export interface ResourceInfo {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** Plural, lower case: the URL segment and the storage key segment. */
  resource: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Subresources served, e.g. `status`, `scale`, `binding`. */
  subresources: string[];
  verbs: string[];
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** Review resources (access reviews, token reviews) are only ever created, never stored. */
export const CREATE_ONLY = ['create'];

export function apiVersionOf(r: Pick<ResourceInfo, 'group' | 'version'>): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** `deployments.apps`, or `pods` for the core group. */
export function groupResourceString(r: Pick<ResourceInfo, 'group' | 'resource'>): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}
