export { PatchError, type PatchErrorKind } from './patch-error.js';
export { applyJsonPatch, decodeJsonPatch, type JsonPatchOperation, type JsonPatchOptions } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { createMergePatch } from './create-merge-patch.js';
export { parseJsonPointer, formatJsonPointer } from './json-pointer.js';
export { cloneJson, jsonEqual, type JsonValue, type JsonObject } from './json-value.js';
