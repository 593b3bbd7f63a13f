/** Group, version and plural resource: what a URL addresses. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface ResourcePathParts extends GroupVersionResource {
  namespace?: string;
  name?: string;
  subresource?: string;
}

/**
 * The one place URLs are built: `/api/v1/...` for the core group,
 * `/apis/{group}/{version}/...` otherwise, then
 * `[namespaces/{ns}/]{resource}[/{name}[/{subresource}]]`.
 */
export function resourcePath(p: ResourcePathParts): string {
  const segments = p.group ? ['apis', p.group, p.version] : ['api', p.version];
  if (p.namespace) segments.push('namespaces', p.namespace);
  segments.push(p.resource);
  if (p.name !== undefined) {
    if (p.name === '') throw new RangeError(`resource name may not be empty (${p.resource})`);
    segments.push(p.name);
    if (p.subresource) segments.push(p.subresource);
  } else if (p.subresource) {
    throw new RangeError(`subresource ${p.subresource} needs a name`);
  }
  return '/' + segments.map(encodeURIComponent).join('/');
}
