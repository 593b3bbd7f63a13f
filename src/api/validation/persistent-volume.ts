import type { PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimSpec } from 'kubernetes-types/core/v1.js';
import { child, deepEqual, forbidden, key, notSupported, required, validateImmutableField, type ErrorList } from './errors.js';
import { validateDNS1123Subdomain } from './container.js';
import { validateLabelSelector } from './label-selector.js';
import { nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';
import { parseQuantity, validateNonnegativeQuantity, validatePositiveQuantity } from './quantity.js';
import { validateVolumeSource } from './volumes.js';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const VOLUME_MODES = ['Block', 'Filesystem'];

function validateAccessModes(modes: string[] | undefined, path: string, requiredDetail: string): ErrorList {
  const errs: ErrorList = [];
  if (!modes?.length) errs.push(required(path, requiredDetail));
  for (const m of modes ?? []) if (!ACCESS_MODES.includes(m)) errs.push(notSupported(path, m, ACCESS_MODES));
  if (modes?.includes('ReadWriteOncePod') && modes.length > 1) {
    errs.push(forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  }
  return errs;
}

export function validatePersistentVolume(pv: PersistentVolume): ErrorList {
  const errs = validateObjectMeta(pv.metadata, false, nameIsDNSSubdomain);
  const spec = pv.spec ?? {};
  errs.push(...validateAccessModes(spec.accessModes, 'spec.accessModes', ''));
  const capacity = spec.capacity ?? {};
  if (Object.keys(capacity).length === 0) errs.push(required('spec.capacity'));
  else if (!('storage' in capacity) || Object.keys(capacity).length > 1) errs.push(notSupported('spec.capacity', capacity, ['storage']));
  for (const [r, q] of Object.entries(capacity)) {
    const p = key('spec.capacity', r);
    const nonneg = validateNonnegativeQuantity(q, p);
    errs.push(...(nonneg.length ? nonneg : validatePositiveQuantity(q, p)));
  }
  const reclaim = spec.persistentVolumeReclaimPolicy;
  if (reclaim && !RECLAIM_POLICIES.includes(reclaim)) errs.push(notSupported('spec.persistentVolumeReclaimPolicy', reclaim, RECLAIM_POLICIES));
  if (spec.storageClassName) errs.push(...validateDNS1123Subdomain(spec.storageClassName, 'spec.storageClassName'));
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode)) errs.push(notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  errs.push(...validateVolumeSource(spec as unknown as Record<string, unknown>, 'spec'));
  return errs;
}

/** Every persistent volume source member: the part of the spec that is immutable. */
function volumeSource(spec: PersistentVolume['spec']): Record<string, unknown> {
  const s = { ...(spec ?? {}) } as Record<string, unknown>;
  for (const f of ['accessModes', 'capacity', 'claimRef', 'mountOptions', 'nodeAffinity', 'persistentVolumeReclaimPolicy', 'storageClassName', 'volumeMode', 'volumeAttributesClassName']) delete s[f];
  return s;
}

export function validatePersistentVolumeUpdate(pv: PersistentVolume, old: PersistentVolume): ErrorList {
  const errs: ErrorList = [];
  if (!deepEqual(volumeSource(pv.spec), volumeSource(old.spec))) {
    errs.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  }
  // Upstream reports this one without the spec prefix.
  errs.push(...validateImmutableField(pv.spec?.volumeMode, old.spec?.volumeMode, 'volumeMode'));
  if (old.spec?.nodeAffinity) errs.push(...validateImmutableField(pv.spec?.nodeAffinity, old.spec.nodeAffinity, 'nodeAffinity'));
  return errs;
}

function validateClaimSpec(spec: PersistentVolumeClaimSpec | undefined, path: string): ErrorList {
  const s = spec ?? {};
  const errs = validateAccessModes(s.accessModes, child(path, 'accessModes'), 'at least 1 access mode is required');
  if (s.selector) errs.push(...validateLabelSelector(s.selector, child(path, 'selector')));
  const storagePath = key(child(path, 'resources'), 'storage');
  const storage = s.resources?.requests?.storage;
  if (storage === undefined) errs.push(required(storagePath));
  else errs.push(...validatePositiveQuantity(storage, storagePath));
  if (s.storageClassName) errs.push(...validateDNS1123Subdomain(s.storageClassName, child(path, 'storageClassName')));
  if (s.volumeMode !== undefined && !VOLUME_MODES.includes(s.volumeMode)) errs.push(notSupported(child(path, 'volumeMode'), s.volumeMode, VOLUME_MODES));
  return errs;
}

export function validatePersistentVolumeClaim(pvc: PersistentVolumeClaim): ErrorList {
  return [...validateObjectMeta(pvc.metadata, true, nameIsDNSSubdomain), ...validateClaimSpec(pvc.spec, 'spec')];
}

/** Volume claim templates inside a StatefulSet are checked as claims under their own path. */
export function validateClaimTemplate(pvc: PersistentVolumeClaim, path: string): ErrorList {
  return validateClaimSpec(pvc.spec, child(path, 'spec'));
}

export const PVC_SPEC_IMMUTABLE = 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

export function validatePersistentVolumeClaimUpdate(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): ErrorList {
  const errs: ErrorList = [];
  const next = { ...(pvc.spec ?? {}) };
  const prev = { ...(old.spec ?? {}) };
  // The binder sets volumeName once.
  if (!prev.volumeName) prev.volumeName = next.volumeName;
  const bound = pvc.status?.phase === 'Bound';
  if (bound && next.resources?.requests) {
    prev.resources = { ...(prev.resources ?? {}), requests: next.resources.requests };
    prev.volumeAttributesClassName = next.volumeAttributesClassName;
  }
  if (!deepEqual(next, prev)) errs.push(forbidden('spec', PVC_SPEC_IMMUTABLE));
  // A request may come back down (recovering from a failed expansion, upstream's RecoverVolumeExpansionFailure)
  // but never to the volume's recorded capacity or below: volumes do not shrink.
  const newSize = parseQuantity(pvc.spec?.resources?.requests?.storage);
  const oldSize = parseQuantity(old.spec?.resources?.requests?.storage);
  const statusSize = parseQuantity(old.status?.capacity?.storage) ?? 0;
  if (newSize !== undefined && oldSize !== undefined && newSize < oldSize && newSize <= statusSize) {
    errs.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  return errs;
}
