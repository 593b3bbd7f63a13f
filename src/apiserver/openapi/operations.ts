import type { ResourceInfo } from '../../api/resource-info.js';
import { definitionNameForKind } from '../../api/schema/definitions.js';
import type { GroupVersionKind } from '../../api/schema/openapi-schema.js';
import { servedGroups, subresourceKind, subresourceVerbs } from '../discovery/groups.js';
import type { ResourceModels } from './resource-models.js';

/**
 * Every path and verb of the served resources, described once and rendered
 * by both the swagger 2.0 (v2) and the OpenAPI 3 (v3) documents.
 */

export interface Parameter {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'boolean' | 'integer';
  description: string;
}

export interface Operation {
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
  operationId: string;
  action: string;
  gvk: GroupVersionKind;
  parameters: Parameter[];
  /** Definition name of the request body, if any. */
  body?: string;
  /** Definition name of the 200 response. */
  response: string;
  consumes?: string[];
}

export interface PathItem {
  path: string;
  parameters: Parameter[];
  operations: Operation[];
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const STATUS = `${META}.Status`;
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const PATCH = `${META}.Patch`;

const q = (name: string, description: string, type: Parameter['type'] = 'string'): Parameter => ({ name, in: 'query', type, description });

const DRY_RUN = q('dryRun', 'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed');
const FIELD_MANAGER = q('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.');
const FIELD_VALIDATION = q(
  'fieldValidation',
  'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict',
);
const FORCE = q('force', 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people.', 'boolean');
const PRETTY = q('pretty', "If 'true', then the output is pretty printed.");
const WRITE = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION];
const PATCH_PARAMS = [...WRITE, FORCE];
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
/** Custom resources take no strategic merge patch; kubectl reads that here and sends them a merge patch. */
const CUSTOM_PATCH_TYPES = PATCH_TYPES.filter((t) => t !== 'application/strategic-merge-patch+json');
const LIST_PARAMS = [
  q('allowWatchBookmarks', 'allowWatchBookmarks requests watch events with type "BOOKMARK".', 'boolean'),
  q('continue', 'The continue option should be set when retrieving more results from the server.'),
  q('fieldSelector', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  q('labelSelector', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  q('limit', 'limit is a maximum number of responses to return for a list call.', 'integer'),
  q('resourceVersion', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
  q('resourceVersionMatch', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  q('timeoutSeconds', 'Timeout for the list/watch call.', 'integer'),
  q('watch', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.', 'boolean'),
];
const DELETE_PARAMS = [
  DRY_RUN,
  q('gracePeriodSeconds', 'The duration in seconds before the object should be deleted.', 'integer'),
  q('propagationPolicy', "Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background', 'Foreground'."),
];
const pathParam = (name: string, description: string): Parameter => ({ name, in: 'path', type: 'string', description });
const NAMESPACE = pathParam('namespace', 'object name and auth scope, such as for teams and projects');

function defName(gvk: GroupVersionKind): string {
  return definitionNameForKind(gvk.group, gvk.version, gvk.kind) ?? STATUS;
}

/** `Namespaced` when the operation is namespace scoped, as in upstream operation ids. */
function scoped(r: ResourceInfo, verb: string, suffix = ''): string {
  return `${verb}${r.namespaced ? 'Namespaced' : ''}${r.kind}${suffix}`;
}

/** A served resource as OpenAPI sees it: its facts, and its own definitions when its kinds are not built in. */
export interface ServedResource {
  info: ResourceInfo;
  models?: ResourceModels;
}

export function resourcePaths({ info: r, models }: ServedResource): PathItem[] {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const collection = r.namespaced ? `${base}/namespaces/{namespace}/${r.resource}` : `${base}/${r.resource}`;
  const item = `${collection}/{name}`;
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const self = models?.kind ?? defName(gvk);
  const list = models?.list ?? definitionNameForKind(r.group, r.version, r.listKind) ?? self;
  const scope = r.namespaced ? [NAMESPACE, PRETTY] : [PRETTY];
  const nameParam = pathParam('name', `name of the ${r.kind}`);
  const patchTypes = models ? CUSTOM_PATCH_TYPES : PATCH_TYPES;
  // create-only resources (access and token reviews) have only the POST
  if (!r.verbs.includes('list')) {
    return [{ path: collection, parameters: scope, operations: [{ method: 'post', operationId: scoped(r, 'create'), action: 'post', gvk, parameters: WRITE, body: self, response: self }] }];
  }
  const out: PathItem[] = [
    {
      path: collection,
      parameters: scope,
      operations: [
        { method: 'get', operationId: scoped(r, 'list'), action: 'list', gvk, parameters: LIST_PARAMS, response: list },
        { method: 'post', operationId: scoped(r, 'create'), action: 'post', gvk, parameters: WRITE, body: self, response: self },
        { method: 'delete', operationId: scoped(r, 'deletecollection'), action: 'deletecollection', gvk, parameters: [...LIST_PARAMS, ...DELETE_PARAMS], body: DELETE_OPTIONS, response: STATUS },
      ],
    },
    {
      path: item,
      parameters: [nameParam, ...scope],
      operations: [
        { method: 'get', operationId: scoped(r, 'read'), action: 'get', gvk, parameters: [], response: self },
        { method: 'put', operationId: scoped(r, 'replace'), action: 'put', gvk, parameters: WRITE, body: self, response: self },
        { method: 'patch', operationId: scoped(r, 'patch'), action: 'patch', gvk, parameters: PATCH_PARAMS, body: PATCH, response: self, consumes: patchTypes },
        { method: 'delete', operationId: scoped(r, 'delete'), action: 'delete', gvk, parameters: DELETE_PARAMS, body: DELETE_OPTIONS, response: STATUS },
      ],
    },
  ];
  for (const sub of r.subresources) {
    const subGvk = subresourceKind(r, sub);
    const model = sub === 'status' ? self : defName(subGvk);
    const suffix = sub[0].toUpperCase() + sub.slice(1);
    const ops: Operation[] = [];
    for (const verb of subresourceVerbs(sub)) {
      if (verb === 'get') ops.push({ method: 'get', operationId: scoped(r, 'read', suffix), action: 'get', gvk: subGvk, parameters: [], response: model });
      if (verb === 'update') ops.push({ method: 'put', operationId: scoped(r, 'replace', suffix), action: 'put', gvk: subGvk, parameters: WRITE, body: model, response: model });
      if (verb === 'patch') ops.push({ method: 'patch', operationId: scoped(r, 'patch', suffix), action: 'patch', gvk: subGvk, parameters: PATCH_PARAMS, body: PATCH, response: model, consumes: patchTypes });
      if (verb === 'create') ops.push({ method: 'post', operationId: scoped(r, 'create', suffix), action: 'post', gvk: subGvk, parameters: WRITE, body: model, response: model });
    }
    out.push({ path: `${item}/${sub}`, parameters: [pathParam('name', `name of the ${subGvk.kind}`), ...scope], operations: ops });
  }
  return out;
}

/** Definition names an operation mentions (bodies and responses). */
export function operationModels(items: PathItem[]): Set<string> {
  const names = new Set<string>();
  for (const p of items) for (const o of p.operations) for (const n of [o.body, o.response]) if (n) names.add(n);
  return names;
}

/** The served resources by group-version, in discovery's order (core first). */
export function servedGroupVersions(served: readonly ServedResource[]): { group: string; version: string; resources: ServedResource[] }[] {
  const byInfo = new Map(served.map((s) => [s.info, s]));
  return servedGroups(served.map((s) => s.info)).flatMap((g) =>
    g.versions.map((v) => ({ group: g.group, version: v.version, resources: v.resources.map((r) => byInfo.get(r)!) })),
  );
}
