import type { CustomResourceDefinitionVersion } from 'kubernetes-types/apiextensions/v1.js';
import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import { nameIsDNSSubdomain } from '../../api/validation/name.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../api/validation/object-meta.js';
import { defaultStrategy, metadataFields } from '../registry/default-strategy.js';
import type { Strategy } from '../registry/strategy.js';
import { applySchemaDefaults } from './schema/defaulting.js';
import { versionSchema, type Schema } from './schema/json-schema.js';
import { prune } from './schema/pruning.js';
import { validateValue } from './schema/validate.js';
import { compileSchemaRules } from './schema/cel-rules.js';
import { validateCelRules } from './schema/cel-validation.js';

/**
 * The strategy of one custom resource version: undeclared fields pruned,
 * schema defaults applied, the object validated against the structural
 * schema (every failing field), status written only through /status when
 * that subresource is on, generation bumped by spec changes.
 */
export function customResourceStrategy(info: ResourceInfo, version: CustomResourceDefinitionVersion): Strategy {
  const schema: Schema = versionSchema(version) ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const hasStatus = version.subresources?.status !== undefined;
  const rules = compileSchemaRules(schema, '');
  // x-kubernetes-validations run only on a value that passed the schema, as upstream
  const validateSchema = (obj: KubeObject, old?: KubeObject) => {
    const errs = validateValue(obj, schema, '');
    return errs.length || !rules ? errs : validateCelRules(rules, obj, old);
  };
  const shape = (obj: KubeObject) => {
    prune(obj as Record<string, unknown>, schema);
    applySchemaDefaults(obj, schema);
  };
  return defaultStrategy(info, {
    tracksGeneration: true,
    prepareForCreate(obj) {
      if (hasStatus) delete obj.status;
      shape(obj);
    },
    prepareForUpdate(obj, old) {
      if (hasStatus) {
        if (old.status === undefined) delete obj.status;
        else obj.status = old.status;
      }
      shape(obj);
    },
    validate: (obj) => [...validateObjectMeta(obj.metadata, info.namespaced, nameIsDNSSubdomain), ...validateSchema(obj)],
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateSchema(obj, old)],
    selectableFields: (obj) => metadataFields(obj, info),
  });
}
