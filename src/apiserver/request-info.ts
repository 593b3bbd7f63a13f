import { boolParam } from '../machinery/query/query-values.js';

/**
 * RequestInfo is what the URL says: which resource, which verb. Parsed once
 * per request, like upstream's RequestInfoFactory.
 */
export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection. */
  verb: string;
  apiPrefix: 'api' | 'apis' | '';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The raw `fieldSelector` of a list or watch (authorization reads `metadata.name` and node selectors from it). */
  fieldSelector?: string;
}

const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** Parses `/api/v1/namespaces/ns/pods/name/status` and friends. */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: (METHOD_VERBS[method] ?? method).toLowerCase(),
    apiPrefix: '',
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
  const parts = path.split('/').filter((p) => p !== '');
  if (parts[0] !== 'api' && parts[0] !== 'apis') return info;
  info.apiPrefix = parts[0];
  let rest = parts.slice(1);
  if (info.apiPrefix === 'apis') {
    if (rest.length < 1) return info;
    info.group = rest[0];
    rest = rest.slice(1);
  }
  if (rest.length < 1) return info;
  info.version = rest[0];
  rest = rest.slice(1);
  if (rest.length < 1) return info;
  info.isResourceRequest = true;

  // /watch/... is the deprecated watch prefix
  if (rest[0] === 'watch') {
    info.verb = 'watch';
    rest = rest.slice(1);
  }
  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      info.namespace = rest[1];
      // namespaces/{name} and namespaces/{name}/{subresource} address the namespace itself
      if (rest.length > 2 && rest[2] !== 'finalize' && rest[2] !== 'status') {
        rest = rest.slice(2);
      } else {
        // the namespace object: resource "namespaces", name = namespace
        info.resource = 'namespaces';
        info.name = rest[1];
        info.subresource = rest[2] ?? '';
        info.namespace = '';
        return finish(info, method, query, rest.length > 3);
      }
    } else {
      info.resource = 'namespaces';
      return finish(info, method, query, false);
    }
  }
  info.resource = rest[0] ?? '';
  info.name = rest[1] ?? '';
  info.subresource = rest[2] ?? '';
  // a proxy subresource carries the target's path after it
  return finish(info, method, query, rest.length > 3 && info.subresource !== 'proxy');
}

function finish(info: RequestInfo, method: string, query: URLSearchParams, extraSegments: boolean): RequestInfo {
  if (extraSegments) info.subresource = info.subresource || '?';
  if (!info.name) {
    if (info.verb === 'get' && method !== 'HEAD') info.verb = boolParam(query, 'watch') ? 'watch' : 'list';
    else if (info.verb === 'get') info.verb = 'list';
    if (info.verb === 'delete') info.verb = 'deletecollection';
    const selector = query.get('fieldSelector');
    if (selector && (info.verb === 'list' || info.verb === 'watch')) info.fieldSelector = selector;
  } else if (info.verb === 'get' && !info.subresource && boolParam(query, 'watch')) {
    info.verb = 'watch';
  }
  return info;
}
