import type { KubeObject } from '../../api/object.js';
import { ApiError, badRequest, unsupportedMediaType } from '../../machinery/api-error.js';
import { applyJsonPatch, applyMergePatch, PatchError } from '../../machinery/patch/index.js';
import { readBody } from '../http/body.js';
import { parseJson, parseYaml } from '../http/decode.js';
import { parseMediaType } from '../http/media-type.js';
import { writeBody } from '../http/respond.js';
import { render } from './render.js';
import { isDryRun, type RequestScope } from './scope.js';

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
        // strategic merge is approximated by a merge patch until it lands
        if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
          throw badRequest('error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}');
        }
        return applyMergePatch(current, patch) as KubeObject;
      case 'apply':
        throw new ApiError(415, 'UnsupportedMediaType', 'server-side apply is not supported yet');
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
  const dryRun = isDryRun(scope.query);
  const subresource = scope.info.subresource === 'status' ? 'status' : undefined;
  const { object } = await scope.store.update(
    scope.info.namespace,
    scope.info.name,
    (current) => {
      const patched = applyPatch(current, type, patch);
      const meta = patched.metadata ?? {};
      if (meta.name !== undefined && meta.name !== current.metadata?.name) {
        throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${scope.info.name})`);
      }
      if (scope.resource.namespaced && meta.namespace !== undefined && meta.namespace !== current.metadata?.namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      return patched;
    },
    { dryRun, subresource },
  );
  writeBody(scope.res, 200, ...render(scope, object));
}
