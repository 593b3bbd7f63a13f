import type { KubeObject } from '../../api/object.js';
import { ApiError, badRequest, notFound, unsupportedMediaType } from '../../machinery/api-error.js';
import { applyJsonPatch, applyMergePatch, PatchError } from '../../machinery/patch/index.js';
import { applyStrategicMergePatch, patchTargetOf } from '../../machinery/patch/strategic/index.js';
import { readBody } from '../http/body.js';
import { parseJson, parseYaml } from '../http/decode.js';
import { parseMediaType } from '../http/media-type.js';
import { optionalBoolParam } from '../../machinery/query/query-values.js';
import { writeObject } from './render.js';
import type { RequestScope } from './scope.js';
import { validateFields, writeOptions, type WriteOptions } from './write-options.js';
import { apply, conflictsToApiError, listSchemaForKind } from '../../machinery/managedfields/index.js';
import { apiVersionOf } from '../../api/resource-info.js';
import { isObject } from '../../api/object.js';
import { writeAdmission } from './write-admission.js';
import { partialSubresource } from './partial-subresource.js';
import { customResourceFacts } from '../apiextensions/custom-resource-serving.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

export function patchTypeOf(contentType: string | undefined): PatchType {
  const type = parseMediaType(contentType ?? '').type;
  const pt = PATCH_TYPES[type];
  if (!pt) throw unsupportedMediaType(type);
  return pt;
}

/** Reads the patch document of a PATCH request. */
export async function readPatch(scope: RequestScope): Promise<{ type: PatchType; patch: unknown }> {
  const type = patchTypeOf(scope.req.headers['content-type']);
  // custom resources have no Go struct to carry merge keys: upstream refuses strategic merge patch for them
  if (type === 'strategic' && customResourceFacts(scope.resource)) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  }
  const body = await readBody(scope.req);
  const patch = type === 'apply' ? parseYaml(body) : parseJson(body);
  return { type, patch };
}

/** Applies a patch document to an object, mapping failures as upstream does (400 malformed, 422 not applicable). */
export function applyPatch(current: KubeObject, type: PatchType, patch: unknown): KubeObject {
  try {
    switch (type) {
      case 'json':
        return applyJsonPatch(current, patch) as KubeObject;
      case 'merge':
      case 'strategic':
        if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
          throw badRequest('error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}');
        }
        return (type === 'strategic' ? applyStrategicMergePatch(current, patch, patchTargetOf(current)) : applyMergePatch(current, patch)) as KubeObject;
      case 'apply':
        throw new ApiError(415, 'UnsupportedMediaType', 'an apply patch is applied by handlePatch, not applyPatch');
    }
  } catch (err) {
    if (err instanceof PatchError) {
      if (err.kind === 'InvalidPatch') throw badRequest(err.message);
      throw new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', { causes: [{ message: err.message }] });
    }
    throw err;
  }
}

export async function handlePatch(scope: RequestScope): Promise<void> {
  const { type, patch } = await readPatch(scope);
  const isApply = type === 'apply';
  const opts = writeOptions(scope, 'PatchOptions', isApply);
  const subresource = partialSubresource(scope.info.subresource);
  if (isApply) {
    if (!isObject(patch)) throw badRequest('error decoding YAML: the apply configuration must be an object');
  }
  const { object, created } = await scope.store.update(
    scope.info.namespace,
    scope.info.name,
    (current) => {
      if (isApply) return applyConfiguration(scope, current, patch as KubeObject, opts, subresource);
      if (!current) throw notFound(scope.store.groupResource, scope.info.name);
      const patched = applyPatch(current, type, patch);
      checkIdentity(scope, current, patched);
      validateFields(scope, patched, undefined, opts.fieldValidation, 'patch');
      return patched;
    },
    // apply records its own managedFields; other patches are recorded as Updates
    {
      dryRun: opts.dryRun,
      subresource,
      createIfMissing: isApply,
      fieldManager: isApply ? undefined : opts.fieldManager,
      admission: writeAdmission(scope, opts.dryRun),
      trace: scope.trace,
    },
  );
  writeObject(scope, created ? 201 : 200, object);
}

function checkIdentity(scope: RequestScope, current: KubeObject, patched: KubeObject): void {
  const meta = patched.metadata ?? {};
  if (meta.name !== undefined && meta.name !== current.metadata?.name) {
    throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${scope.info.name})`);
  }
  if (scope.resource.namespaced && meta.namespace !== undefined && meta.namespace !== current.metadata?.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

/** Server-side apply of one configuration onto the live object (or none: create-on-apply). */
function applyConfiguration(scope: RequestScope, current: KubeObject | undefined, config: KubeObject, opts: WriteOptions, subresource: string | undefined): KubeObject {
  const applied = structuredClone(config);
  const expected = apiVersionOf(scope.resource);
  if (applied.kind !== undefined && applied.kind !== scope.resource.kind) {
    throw badRequest(`the kind in the data (${String(applied.kind)}) does not match the expected kind (${scope.resource.kind})`);
  }
  checkIdentity(scope, current ?? { metadata: { name: scope.info.name, namespace: scope.info.namespace || undefined } }, applied);
  validateFields(scope, applied, undefined, opts.fieldValidation, 'patch');
  const result = apply({
    current,
    applied,
    manager: opts.fieldManager,
    force: optionalBoolParam(scope.query, 'force') ?? false,
    apiVersion: expected,
    time: scope.now(),
    subresource,
    schema: listSchemaForKind(scope.resource),
  });
  if ('conflicts' in result && result.conflicts) throw conflictsToApiError(result.conflicts);
  const object = (result as { object: KubeObject }).object;
  object.apiVersion = expected;
  object.kind = scope.resource.kind;
  const meta = (object.metadata ??= {});
  meta.name = scope.info.name;
  if (scope.resource.namespaced) meta.namespace = scope.info.namespace;
  return object;
}
