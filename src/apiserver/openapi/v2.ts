import { builtinDefinitions } from '../../api/schema/definitions.js';
import type { Definitions, OpenApiSchema } from '../../api/schema/openapi-schema.js';
import { swaggerSchema } from './gnostic-v2.js';
import { resourcePaths, servedGroupVersions, type Operation, type Parameter, type PathItem, type ServedResource } from './operations.js';

/**
 * The swagger 2.0 document (`GET /openapi/v2`): every served path plus all
 * built-in definitions and those of the custom resources served. kubectl up
 * to 1.27 fetches it (as protobuf) before `create -f`/`apply -f` to learn
 * that the server supports fieldValidation.
 */

export const VERSION_TITLE = 'v1.32.0';

export interface SwaggerDocument {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  definitions: Record<string, OpenApiSchema>;
}

export function swaggerDocument(served: readonly ServedResource[]): SwaggerDocument {
  const paths: SwaggerDocument['paths'] = {};
  let definitions: Definitions = builtinDefinitions();
  for (const gv of servedGroupVersions(served)) {
    for (const r of gv.resources) {
      for (const item of resourcePaths(r)) paths[item.path] = pathItem(item);
      if (r.models) {
        // swagger 2.0 has no anyOf, nullable and the like: those keywords are left out, as upstream's v2 conversion does
        definitions = { ...definitions };
        for (const [name, schema] of Object.entries(r.models.definitions)) definitions[name] = swaggerSchema(schema) as OpenApiSchema;
      }
    }
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: VERSION_TITLE }, paths, definitions };
}

function parameter(p: Parameter): Record<string, unknown> {
  return { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in, ...(p.in === 'path' ? { required: true } : {}) };
}

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });

function operation(o: Operation): Record<string, unknown> {
  const params: Record<string, unknown>[] = [];
  if (o.body) params.push({ name: 'body', in: 'body', required: o.method !== 'delete', schema: ref(o.body) });
  params.push(...o.parameters.map(parameter));
  const created = o.method === 'post' || o.method === 'put';
  return {
    description: `${o.action} ${o.gvk.kind}`,
    consumes: o.consumes ?? ['*/*'],
    produces: ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
    schemes: ['https'],
    operationId: o.operationId,
    parameters: params,
    responses: {
      '200': { description: 'OK', schema: ref(o.response) },
      ...(created ? { '201': { description: 'Created', schema: ref(o.response) } } : {}),
      '401': { description: 'Unauthorized' },
    },
    'x-kubernetes-action': o.action,
    'x-kubernetes-group-version-kind': o.gvk,
  };
}

function pathItem(item: PathItem): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const o of item.operations) out[o.method] = operation(o);
  out.parameters = item.parameters.map(parameter);
  return out;
}
