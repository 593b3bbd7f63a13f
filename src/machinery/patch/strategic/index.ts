export { applyStrategicMergePatch, patchTargetOf, type PatchTarget } from './apply-strategic-merge-patch.js';
export { schemaForKind, UNKNOWN_SCHEMA, type PatchSchema, type FieldLookup } from './patch-schema.js';
