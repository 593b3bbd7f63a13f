import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import { child, invalid, forbidden, required, tooLong, validateImmutableField, validateNonnegativeField, type ErrorList } from './errors.js';
import { isQualifiedName, isValidLabelValue, nameIsDNSLabel, type NameValidator } from './name.js';

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** Upstream's ValidateLabels: errors carry the map's path, not the key's. */
export function validateLabels(labels: Record<string, string> | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    errs.push(...validateLabelName(k, path));
    for (const msg of isValidLabelValue(String(v))) errs.push(invalid(path, v, msg));
  }
  return errs;
}

export function validateLabelName(name: string, path: string): ErrorList {
  return isQualifiedName(name).map((msg) => invalid(path, name, msg));
}

export function validateQualifiedName(value: string, path: string): ErrorList {
  return isQualifiedName(value).map((msg) => invalid(path, value, msg));
}

export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    // Annotation keys are qualified names except that case does not matter.
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, msg));
    size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

function validateOwnerReference(ref: OwnerReference, path: string): ErrorList {
  const errs: ErrorList = [];
  const apiVersion = ref.apiVersion ?? '';
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  if (!version) errs.push(invalid(child(path, 'apiVersion'), apiVersion, 'version must not be empty'));
  if (!ref.kind) errs.push(invalid(child(path, 'kind'), ref.kind ?? '', 'kind must not be empty'));
  if (!ref.name) errs.push(invalid(child(path, 'name'), ref.name ?? '', 'name must not be empty'));
  if (!ref.uid) errs.push(invalid(child(path, 'uid'), ref.uid ?? '', 'uid must not be empty'));
  return errs;
}

export function validateOwnerReferences(refs: OwnerReference[] | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    errs.push(...validateOwnerReference(ref, path));
    if (ref.controller) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(
          invalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

export function validateFinalizers(finalizers: string[] | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  for (const f of finalizers ?? []) errs.push(...validateQualifiedName(f, path));
  if (finalizers?.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** Upstream's ValidateObjectMeta(meta, requiresNamespace, nameFn, "metadata"). */
export function validateObjectMeta(meta: ObjectMeta | undefined, requiresNamespace: boolean, nameFn: NameValidator, path = 'metadata'): ErrorList {
  const m = meta ?? {};
  const errs: ErrorList = [];
  if (m.generateName) {
    for (const msg of nameFn(m.generateName, true)) errs.push(invalid(child(path, 'generateName'), m.generateName, msg));
  }
  if (!m.name) errs.push(required(child(path, 'name'), 'name or generateName is required'));
  else for (const msg of nameFn(m.name, false)) errs.push(invalid(child(path, 'name'), m.name, msg));
  if (requiresNamespace) {
    if (!m.namespace) errs.push(required(child(path, 'namespace')));
    else for (const msg of nameIsDNSLabel(m.namespace, false)) errs.push(invalid(child(path, 'namespace'), m.namespace, msg));
  } else if (m.namespace) {
    errs.push(forbidden(child(path, 'namespace'), 'not allowed on this type'));
  }
  errs.push(...validateNonnegativeField(m.generation, child(path, 'generation')));
  errs.push(...validateLabels(m.labels, child(path, 'labels')));
  errs.push(...validateAnnotations(m.annotations, child(path, 'annotations')));
  errs.push(...validateOwnerReferences(m.ownerReferences, child(path, 'ownerReferences')));
  errs.push(...validateFinalizers(m.finalizers, child(path, 'finalizers')));
  return errs;
}

/**
 * Upstream's ValidateObjectMetaUpdate. The API server is expected to have
 * copied the stored resourceVersion into unconditional updates, as upstream's
 * store does, before calling this.
 */
export function validateObjectMetaUpdate(meta: ObjectMeta | undefined, old: ObjectMeta | undefined, path = 'metadata'): ErrorList {
  const m = meta ?? {};
  const o = old ?? {};
  const errs: ErrorList = [];
  if (o.deletionTimestamp) {
    const added = [...new Set(m.finalizers ?? [])].filter((f) => !(o.finalizers ?? []).includes(f)).sort();
    if (added.length) {
      errs.push(
        forbidden(
          child(path, 'finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
    }
  }
  if (!m.resourceVersion) errs.push(invalid(child(path, 'resourceVersion'), m.resourceVersion ?? '', 'must be specified for an update'));
  if ((m.generation ?? 0) < (o.generation ?? 0)) errs.push(invalid(child(path, 'generation'), m.generation ?? 0, 'must not be decremented'));
  errs.push(...validateImmutableField(m.name, o.name, child(path, 'name')));
  errs.push(...validateImmutableField(m.namespace, o.namespace, child(path, 'namespace')));
  errs.push(...validateImmutableField(m.uid, o.uid, child(path, 'uid')));
  errs.push(...validateImmutableField(m.creationTimestamp, o.creationTimestamp, child(path, 'creationTimestamp')));
  errs.push(...validateImmutableField(m.deletionTimestamp, o.deletionTimestamp, child(path, 'deletionTimestamp')));
  errs.push(...validateImmutableField(m.deletionGracePeriodSeconds, o.deletionGracePeriodSeconds, child(path, 'deletionGracePeriodSeconds')));
  errs.push(...validateLabels(m.labels, child(path, 'labels')));
  errs.push(...validateAnnotations(m.annotations, child(path, 'annotations')));
  errs.push(...validateOwnerReferences(m.ownerReferences, child(path, 'ownerReferences')));
  return errs;
}
