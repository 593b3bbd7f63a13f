import type { KubeObject } from '../../api/object.js';
import { checkFieldValidation, strictDecodingMessage, type FieldValidationDirective } from '../../api/schema/field-validation.js';
import type { JsonBody } from '../../api/schema/json-body.js';
import { findTypeError } from '../../api/schema/type-check.js';
import { badRequest } from '../../machinery/api-error.js';
import { managerOrUserAgent, validateFieldManagerOptions } from '../../machinery/managedfields/index.js';
import { isDryRun, type RequestScope } from './scope.js';
import { customResourceFacts, customResourceUnknownFields } from '../apiextensions/custom-resource-serving.js';
import { addWarning } from '../http/warnings.js';

export interface WriteOptions {
  dryRun: boolean;
  /** Who the write is recorded as in managedFields. */
  fieldManager: string;
  fieldValidation: FieldValidationDirective;
}

const DIRECTIVES = ['Strict', 'Warn', 'Ignore'];

/** dryRun, fieldManager and fieldValidation of a create, update or patch, checked as upstream. */
export function writeOptions(scope: RequestScope, optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', isApply = false): WriteOptions {
  const q = scope.query;
  const directive = q.get('fieldValidation') || 'Warn';
  if (!DIRECTIVES.includes(directive)) {
    throw badRequest(`fieldValidation must be one of "Ignore", "Warn", or "Strict" but is: "${directive}"`);
  }
  const fieldManager = q.get('fieldManager') ?? undefined;
  const err = validateFieldManagerOptions({ optionsKind, fieldManager, forceGiven: q.has('force'), isApply });
  if (err) throw err;
  return {
    dryRun: isDryRun(q),
    fieldManager: isApply ? (fieldManager ?? '') : managerOrUserAgent(fieldManager, scope.req.headers['user-agent']),
    fieldValidation: directive as FieldValidationDirective,
  };
}

/**
 * Values of the wrong type are a 400. Unknown and duplicate fields: Strict refuses the request (400), Warn adds a
 * `Warning` header per field; either way unknown fields are dropped, as
 * decoding into typed objects drops them upstream.
 */
export function validateFields(scope: RequestScope, obj: KubeObject, rawJson: JsonBody | string | undefined, directive: FieldValidationDirective, context: 'body' | 'patch' = 'body'): void {
  const { group, version, kind } = scope.resource;
  const gvk = context === 'body' && scope.info.subresource === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : { group, version, kind };
  // values of the wrong JSON type are refused whatever the directive, as decoding into typed structs does upstream
  const typeError = findTypeError(obj, gvk);
  if (typeError) throw badRequest(context === 'patch' ? typeError : `${gvk.kind} in version "${gvk.version}" cannot be handled as a ${gvk.kind}: ${typeError}`);
  const custom = context === 'body' && scope.info.subresource === 'scale' ? undefined : customResourceFacts(scope.resource);
  const result = checkFieldValidation(rawJson, obj, gvk, directive, custom ? customResourceUnknownFields(obj, custom) : undefined);
  if (result.error) throw badRequest(context === 'patch' ? strictDecodingMessage(result.strictErrors) : result.error);
  for (const w of result.warnings) addWarning(scope.res, w);
  for (const path of result.unknownPaths) dropField(obj, path);
}

/** Deletes the field at an unknown-field path such as `.spec.containers[0].imagee`. */
function dropField(obj: KubeObject, path: string): void {
  const parts = path.match(/[^.[\]]+|\[\d+\]/g) ?? [];
  let cur: unknown = obj;
  for (let i = 0; i < parts.length - 1; i++) {
    if (typeof cur !== 'object' || cur === null) return;
    const p = parts[i];
    cur = p.startsWith('[') ? (cur as unknown[])[Number(p.slice(1, -1))] : (cur as Record<string, unknown>)[p];
  }
  const last = parts[parts.length - 1];
  if (typeof cur === 'object' && cur !== null && last && !last.startsWith('[')) delete (cur as Record<string, unknown>)[last];
}
