/**
 * The bridge from client-side apply (the last-applied-configuration
 * annotation) to server-side apply, as upstream's lastAppliedManager and
 * lastAppliedUpdater do it for the `kubectl` manager: a first server-side
 * apply may take over, without --force-conflicts, the fields whose live
 * values still match the annotation; and while the annotation exists it is
 * kept in step with what kubectl applies, so client-side apply still works.
 */
import type { KubeObject } from '../../api/object.js';
import type { JsonObject } from '../patch/json-value.js';
import { isJsonObject } from '../patch/json-value.js';
import { compareObjects } from './compare.js';
import type { FieldSet } from './field-set.js';
import type { ListSchema } from './list-schema.js';
import { canonicalJson } from './path-element.js';
import { objectToFieldSet } from './to-field-set.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The manager name kubectl uses for server-side apply; only it gets the client-side apply bridge. */
export const KUBECTL_APPLY_MANAGER = 'kubectl';

// Upstream's ValidateAnnotationsSize limit (TotalAnnotationSizeLimitB).
const ANNOTATIONS_SIZE_LIMIT = 256 * 1024;

/**
 * Fields of the last-applied configuration whose values the live object
 * still has: conflicts on them are allowed. Undefined when there is no
 * usable annotation.
 */
export function allowedConflictsFromLastApplied(live: KubeObject, schema: ListSchema): FieldSet | undefined {
  const raw = live.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  if (!raw) return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isJsonObject(lastApplied) || lastApplied.apiVersion !== live.apiVersion) return undefined;
  const { managedFields: _ignored, ...meta } = live.metadata ?? {};
  const liveJson = { ...live, metadata: meta } as unknown as JsonObject;
  const c = compareObjects(lastApplied, liveJson, schema);
  return objectToFieldSet(lastApplied, schema).difference(c.modified).difference(c.added).difference(c.removed);
}

/** Whether the object carries a client-side apply annotation. */
export function hasLastApplied(obj: KubeObject | undefined): boolean {
  return !!obj?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
}

/**
 * Sets the annotation of `obj` (mutated) to the applied configuration
 * without its own annotation, as sorted JSON like upstream's encoder; drops
 * it instead when annotations would grow past their size limit.
 */
export function syncLastApplied(obj: KubeObject, applied: KubeObject): void {
  const copy = JSON.parse(JSON.stringify(applied)) as KubeObject;
  if (copy.metadata?.annotations) {
    const { [LAST_APPLIED_ANNOTATION]: _own, ...rest } = copy.metadata.annotations;
    copy.metadata.annotations = rest;
  }
  const value = canonicalJson(copy as unknown as JsonObject);
  obj.metadata ??= {};
  const annotations = { ...(obj.metadata.annotations ?? {}), [LAST_APPLIED_ANNOTATION]: value };
  const size = Object.entries(annotations).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (size > ANNOTATIONS_SIZE_LIMIT) {
    const { [LAST_APPLIED_ANNOTATION]: _dropped, ...rest } = annotations;
    obj.metadata.annotations = rest;
  } else {
    obj.metadata.annotations = annotations;
  }
}
