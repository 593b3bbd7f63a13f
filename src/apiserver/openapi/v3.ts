import { createHash } from 'node:crypto';
import { apiVersionOf, type ResourceInfo } from '../../api/resource-info.js';
import { servedGroups } from '../discovery/groups.js';

/**
 * OpenAPI v3: one document per group-version with an operation per path and
 * verb. kubectl reads the PATCH operations' parameters to learn that the
 * server validates fields itself (fieldValidation), so it skips client-side
 * schema validation.
 */
export function openApiDocument(group: string, version: string): Record<string, unknown> | undefined {
  const g = servedGroups().find((x) => x.group === group);
  const v = g?.versions.find((x) => x.version === version);
  if (!v) return undefined;
  const paths: Record<string, unknown> = {};
  for (const r of v.resources) Object.assign(paths, resourcePaths(r));
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas: {} },
  };
}

const QUERY = (name: string, type = 'string') => ({ name, in: 'query', schema: { type }, description: name, uniqueItems: true });
const WRITE_PARAMS = [QUERY('dryRun'), QUERY('fieldManager'), QUERY('fieldValidation')];

function operation(r: ResourceInfo, action: string, verb: string, extraParams: unknown[] = []) {
  return {
    operationId: `${verb}${r.kind}`,
    parameters: extraParams,
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: r.group, version: r.version, kind: r.kind },
  };
}

function resourcePaths(r: ResourceInfo): Record<string, unknown> {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const collection = r.namespaced ? `${base}/namespaces/{namespace}/${r.resource}` : `${base}/${r.resource}`;
  const item = `${collection}/{name}`;
  const out: Record<string, unknown> = {
    [collection]: {
      get: operation(r, 'list', 'list'),
      post: operation(r, 'post', 'create', WRITE_PARAMS),
      delete: operation(r, 'deletecollection', 'deletecollection'),
    },
    [item]: {
      get: operation(r, 'get', 'read'),
      put: operation(r, 'put', 'replace', WRITE_PARAMS),
      patch: operation(r, 'patch', 'patch', [...WRITE_PARAMS, QUERY('force', 'boolean')]),
      delete: operation(r, 'delete', 'delete'),
    },
  };
  for (const sub of r.subresources) {
    out[`${item}/${sub}`] = {
      get: operation(r, 'get', `read${sub}`),
      put: operation(r, 'put', `replace${sub}`, WRITE_PARAMS),
      patch: operation(r, 'patch', `patch${sub}`, WRITE_PARAMS),
    };
  }
  return out;
}

let indexCache: Record<string, unknown> | undefined;

/** GET /openapi/v3: the path index, each URL carrying a hash of its document. */
export function openApiIndex(): Record<string, unknown> {
  if (indexCache) return indexCache;
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const g of servedGroups()) {
    for (const v of g.versions) {
      const key = g.group ? `apis/${g.group}/${v.version}` : `api/${v.version}`;
      const hash = createHash('sha512').update(JSON.stringify(openApiDocument(g.group, v.version))).digest('hex').slice(0, 128).toUpperCase();
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
    }
  }
  indexCache = { paths };
  return indexCache;
}

export { apiVersionOf };
