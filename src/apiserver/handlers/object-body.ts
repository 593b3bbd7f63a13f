import type { KubeObject } from '../../api/object.js';
import { apiVersionOf } from '../../api/resource-info.js';
import { jsonBody, type JsonBody } from '../../api/schema/json-body.js';
import { badRequest } from '../../machinery/api-error.js';
import { readBody } from '../http/body.js';
import { bodyFormat, decodeObjectBody } from '../http/decode.js';
import type { RequestScope } from './scope.js';
import { auditRequestObject } from '../audit/request-audit.js';

/**
 * Reads the request's object and checks it against the URL: kind and
 * apiVersion, namespace and (for PUT) name, as upstream's decoding does.
 */
export async function readObject(scope: RequestScope, expectedKind = scope.resource.kind, expectedApiVersion = apiVersionOf(scope.resource)): Promise<KubeObject> {
  return (await readObjectAndText(scope, expectedKind, expectedApiVersion)).obj;
}

/** readObject, plus the body text when it is JSON (duplicate fields are only visible there). */
export async function readObjectAndText(
  scope: RequestScope,
  expectedKind = scope.resource.kind,
  expectedApiVersion = apiVersionOf(scope.resource),
): Promise<{ obj: KubeObject; json?: JsonBody }> {
  const body = await readBody(scope.req);
  const contentType = scope.req.headers['content-type'];
  const obj = decodeObjectBody(body, contentType);
  // counted before anything below changes obj
  const json = bodyFormat(contentType) === 'json' ? jsonBody(body.toString('utf8'), obj) : undefined;
  auditRequestObject(scope.req, obj);
  if (obj.apiVersion !== undefined && obj.apiVersion !== expectedApiVersion) {
    throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expectedApiVersion})`);
  }
  if (obj.kind !== undefined && obj.kind !== expectedKind) {
    throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${expectedKind})`);
  }
  obj.apiVersion = expectedApiVersion;
  obj.kind = expectedKind;
  checkNamespace(scope, obj);
  return { obj, json };
}

export function checkNamespace(scope: RequestScope, obj: KubeObject): void {
  const meta = (obj.metadata ??= {});
  if (!scope.resource.namespaced) {
    delete meta.namespace;
    return;
  }
  const ns = scope.info.namespace;
  if (!meta.namespace) meta.namespace = ns;
  else if (meta.namespace !== ns) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

export function checkName(scope: RequestScope, obj: KubeObject): void {
  const name = obj.metadata?.name;
  if (name === undefined || name === '') {
    (obj.metadata ??= {}).name = scope.info.name;
  } else if (name !== scope.info.name) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${scope.info.name})`);
  }
}
