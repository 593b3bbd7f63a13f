import { createHash } from 'node:crypto';
import { builtinDefinitions } from '../../api/schema/definitions.js';
import { refName, type Definitions, type OpenApiSchema } from '../../api/schema/openapi-schema.js';
import { operationModels, resourcePaths, servedGroupVersions, type Operation, type Parameter, type PathItem, type ServedResource } from './operations.js';
import { VERSION_TITLE } from './v2.js';

/**
 * OpenAPI v3: one document per group-version, with an operation per path
 * and verb and `components.schemas` holding that group-version's kinds and
 * everything they reference. kubectl reads it for `explain` and to learn
 * that the server validates fields itself (PATCH carries fieldValidation).
 */

/** The document for `group`/`version` of the served resources; undefined when that group-version is not served. */
export function openApiDocument(served: readonly ServedResource[], group: string, version: string): Record<string, unknown> | undefined {
  const gv = servedGroupVersions(served).find((x) => x.group === group && x.version === version);
  if (!gv) return undefined;
  const items = gv.resources.flatMap(resourcePaths);
  const paths: Record<string, unknown> = {};
  for (const item of items) paths[item.path] = pathItem(item);
  let defs: Definitions = builtinDefinitions();
  for (const r of gv.resources) if (r.models) defs = { ...defs, ...r.models.definitions };
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: VERSION_TITLE },
    paths,
    components: { schemas: componentSchemas(items, defs) },
  };
}

/** Upstream's hash of a document: hex SHA-512 of its serialized bytes, upper case. */
export function openApiHash(body: string | Uint8Array): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

/** The served group-versions as `/openapi/v3` names them: `api/v1`, `apis/apps/v1`. */
export function openApiGroupVersions(served: readonly ServedResource[]): { path: string; group: string; version: string }[] {
  return servedGroupVersions(served).map(({ group, version }) => ({ path: group ? `apis/${group}/${version}` : `api/${version}`, group, version }));
}

function parameter(p: Parameter): Record<string, unknown> {
  return { name: p.name, in: p.in, description: p.description, ...(p.in === 'path' ? { required: true } : {}), schema: { type: p.type, uniqueItems: true } };
}

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const MEDIA = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const content = (name: string, media = MEDIA) => Object.fromEntries(media.map((m) => [m, { schema: schemaRef(name) }]));

function operation(o: Operation): Record<string, unknown> {
  const created = o.method === 'post' || o.method === 'put';
  return {
    description: `${o.action} ${o.gvk.kind}`,
    operationId: o.operationId,
    parameters: o.parameters.map(parameter),
    ...(o.body ? { requestBody: { content: content(o.body, o.consumes ?? MEDIA), required: o.method !== 'delete' } } : {}),
    responses: {
      '200': { description: 'OK', content: content(o.response) },
      ...(created ? { '201': { description: 'Created', content: content(o.response) } } : {}),
      '401': { description: 'Unauthorized' },
    },
    'x-kubernetes-action': o.action,
    'x-kubernetes-group-version-kind': o.gvk,
  };
}

function pathItem(item: PathItem): Record<string, unknown> {
  const out: Record<string, unknown> = { parameters: item.parameters.map(parameter) };
  for (const o of item.operations) out[o.method] = operation(o);
  return out;
}

/** The named definitions and their transitive references, with v3 references. */
export function componentSchemas(items: PathItem[], defs: Definitions): Record<string, unknown> {
  const wanted = [...operationModels(items)];
  const seen = new Set<string>();
  while (wanted.length) {
    const name = wanted.pop()!;
    if (seen.has(name) || !defs[name]) continue;
    seen.add(name);
    collectRefs(defs[name], wanted);
  }
  const out: Record<string, unknown> = {};
  for (const name of [...seen].sort()) out[name] = ONE_OF_TYPES[name] ? oneOfTypes(defs[name], ONE_OF_TYPES[name]) : toV3(defs[name]);
  return out;
}

/**
 * Types that accept more than one JSON type are `oneOf` in upstream's v3
 * documents (no `type`), which is also why explain prints `<IntOrString>`
 * and `<Quantity>` for them rather than `<string>`.
 */
const ONE_OF_TYPES: Record<string, string[]> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': ['integer', 'string'],
  'io.k8s.apimachinery.pkg.api.resource.Quantity': ['string', 'number'],
};

function oneOfTypes(s: OpenApiSchema, types: string[]): Record<string, unknown> {
  const { type: _type, ...rest } = s;
  return { ...rest, oneOf: types.map((type) => ({ type })) };
}

function collectRefs(s: OpenApiSchema, into: string[]): void {
  if (s.$ref) into.push(refName(s.$ref));
  if (s.items) collectRefs(s.items, into);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') collectRefs(s.additionalProperties, into);
  for (const p of Object.values(s.properties ?? {})) collectRefs(p, into);
}

/** v3 spelling: references into components, wrapped in allOf when they carry siblings (as upstream does). */
export function toV3(s: OpenApiSchema): Record<string, unknown> {
  const { $ref, items, additionalProperties, properties, ...rest } = s;
  const out: Record<string, unknown> = { ...rest };
  if (items) out.items = toV3(items);
  if (additionalProperties !== undefined) out.additionalProperties = typeof additionalProperties === 'object' ? toV3(additionalProperties) : additionalProperties;
  if (properties) out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, toV3(v)]));
  if ($ref) {
    const ref = schemaRef(refName($ref));
    return Object.keys(out).length ? { ...out, allOf: [ref] } : ref;
  }
  return out;
}

/** GET /openapi/v3: the path index, each URL carrying the hash of its document (given by `hashOf`). */
export function openApiIndex(served: readonly ServedResource[], hashOf: (group: string, version: string) => string): Record<string, unknown> {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const gv of openApiGroupVersions(served)) paths[gv.path] = { serverRelativeURL: `/openapi/v3/${gv.path}?hash=${hashOf(gv.group, gv.version)}` };
  return { paths };
}
