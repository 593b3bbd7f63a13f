import type { CSIDriver, CSINode, StorageClass, VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import type { TopologySelectorTerm } from 'kubernetes-types/core/v1.js';
import { child, deepEqual, duplicate, forbidden, index, invalid, notSupported, required, tooLong, validateImmutableField, type ErrorList } from './errors.js';
import { validateDNS1123Subdomain } from './container.js';
import { nameIsDNSSubdomain } from './name.js';
import { validateLabelName, validateObjectMeta, validateQualifiedName } from './object-meta.js';

/** Upstream's storage validation (pkg/apis/storage/validation). */

const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;
const CSI_DRIVER_NAME_MAX = 63;
const CSI_DRIVER_NAME_RE = /^[a-zA-Z0-9][-a-zA-Z0-9_.]{0,61}[a-zA-Z-0-9]$/;
const CSI_DRIVER_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const CSI_NODE_ID_MAX = 192;
const LIFECYCLE_MODES = ['Ephemeral', 'Persistent'];
const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];

function validateParameters(params: Record<string, string> | undefined, path: string): ErrorList {
  const entries = Object.entries(params ?? {});
  if (entries.length > MAX_PARAMETERS) return [{ type: 'FieldValueTooLong', field: path, detail: `may not be more than ${MAX_PARAMETERS} bytes` }];
  const errs: ErrorList = [];
  let size = 0;
  for (const [k, v] of entries) {
    if (k.length < 1) errs.push(invalid(path, k, 'field can not be empty.'));
    size += k.length + v.length;
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(tooLong(path, MAX_PARAMETERS_SIZE));
  return errs;
}

function validateAllowedTopologies(terms: TopologySelectorTerm[] | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  const seen: string[] = [];
  (terms ?? []).forEach((term, i) => {
    const p = index(path, i);
    const exprs = term.matchLabelExpressions ?? [];
    if (exprs.length === 0) errs.push(required(p, 'must have at least one label requirement'));
    const keys = new Set<string>();
    exprs.forEach((e, j) => {
      const ep = index(child(p, 'matchLabelExpressions'), j);
      errs.push(...validateLabelName(e.key, child(ep, 'key')));
      if (keys.has(e.key)) errs.push(duplicate(child(ep, 'key'), e.key));
      keys.add(e.key);
      if (!e.values?.length) errs.push(required(child(ep, 'values'), 'must specify as least one value'));
      const values = new Set<string>();
      (e.values ?? []).forEach((v, k) => {
        if (values.has(v)) errs.push(duplicate(index(child(ep, 'values'), k), v));
        values.add(v);
      });
    });
    const canonical = JSON.stringify(exprs.map((e) => [e.key, [...(e.values ?? [])].sort()]).sort());
    if (seen.includes(canonical)) errs.push(duplicate(p, term));
    seen.push(canonical);
  });
  return errs;
}

export function validateStorageClass(sc: StorageClass): ErrorList {
  const errs = validateObjectMeta(sc.metadata, false, nameIsDNSSubdomain);
  const provisioner = sc.provisioner ?? '';
  if (provisioner === '') errs.push(required('provisioner'));
  else errs.push(...validateQualifiedName(provisioner.toLowerCase(), 'provisioner'));
  errs.push(...validateParameters(sc.parameters, 'parameters'));
  if (sc.reclaimPolicy && !RECLAIM_POLICIES.includes(sc.reclaimPolicy)) errs.push(notSupported('reclaimPolicy', sc.reclaimPolicy, RECLAIM_POLICIES));
  if (sc.volumeBindingMode === undefined) errs.push(required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode)) errs.push(notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  errs.push(...validateAllowedTopologies(sc.allowedTopologies, 'allowedTopologies'));
  return errs;
}

export function validateStorageClassUpdate(sc: StorageClass, old: StorageClass): ErrorList {
  const errs: ErrorList = [];
  if (!deepEqual(sc.parameters ?? {}, old.parameters ?? {})) errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (sc.provisioner !== old.provisioner) errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if ((sc.reclaimPolicy ?? '') !== (old.reclaimPolicy ?? '')) errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  errs.push(...validateImmutableField(sc.volumeBindingMode, old.volumeBindingMode, 'volumeBindingMode'));
  return errs;
}

/** Upstream's ValidateCSIDriverName: at most 63 characters of a DNS-like alphabet. */
export function validateCSIDriverName(name: string, path: string): ErrorList {
  if (name.length === 0) return [required(path)];
  if (name.length > CSI_DRIVER_NAME_MAX) return [{ type: 'FieldValueTooLong', field: path, badValue: name, detail: `must be no more than ${CSI_DRIVER_NAME_MAX} characters` }];
  if (!CSI_DRIVER_NAME_RE.test(name)) return [invalid(path, name, CSI_DRIVER_NAME_MSG)];
  return [];
}

export function validateCSIDriver(d: CSIDriver): ErrorList {
  const errs = validateCSIDriverName(d.metadata?.name ?? '', 'metadata.name');
  const meta = validateObjectMeta(d.metadata, false, () => []);
  errs.push(...meta);
  const spec = d.spec ?? {};
  if (spec.attachRequired === undefined) errs.push(required('spec.attachRequired'));
  if (spec.podInfoOnMount === undefined) errs.push(required('spec.podInfoOnMount'));
  if (spec.storageCapacity === undefined) errs.push(required('spec.storageCapacity'));
  if (spec.requiresRepublish === undefined) errs.push(required('spec.requiresRepublish'));
  if (spec.fsGroupPolicy !== undefined && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy)) errs.push(notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FS_GROUP_POLICIES));
  for (const m of spec.volumeLifecycleModes ?? []) if (!LIFECYCLE_MODES.includes(m)) errs.push(notSupported('spec.volumeLifecycleModes', m, LIFECYCLE_MODES));
  const audiences = new Set<string>();
  (spec.tokenRequests ?? []).forEach((t, i) => {
    const p = child(index('spec.tokenRequests', i), 'audience');
    if (audiences.has(t.audience)) errs.push(duplicate(p, t.audience));
    audiences.add(t.audience);
    if (t.expirationSeconds !== undefined) {
      if (t.expirationSeconds < 600) errs.push(invalid(child(index('spec.tokenRequests', i), 'expirationSeconds'), t.expirationSeconds, 'may not specify a duration less than 10 minutes'));
      else if (t.expirationSeconds > 2 ** 32) errs.push(invalid(child(index('spec.tokenRequests', i), 'expirationSeconds'), t.expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
    }
  });
  return errs;
}

export function validateCSIDriverUpdate(d: CSIDriver, old: CSIDriver): ErrorList {
  return [
    ...validateImmutableField(d.spec?.attachRequired, old.spec?.attachRequired, 'spec.attachRequired'),
    ...validateImmutableField(d.spec?.volumeLifecycleModes, old.spec?.volumeLifecycleModes, 'spec.volumeLifecycleModes'),
  ];
}

export function validateCSINode(n: CSINode): ErrorList {
  const errs = validateObjectMeta(n.metadata, false, nameIsDNSSubdomain);
  const names = new Set<string>();
  (n.spec?.drivers ?? []).forEach((d, i) => {
    const p = index('spec.drivers', i);
    errs.push(...validateCSIDriverName(d.name ?? '', child(p, 'name')));
    if (names.has(d.name)) errs.push(duplicate(child(p, 'name'), d.name));
    names.add(d.name);
    if (!d.nodeID) errs.push(required(child(p, 'nodeID'), 'nodeID of the driver must be provided'));
    else if (d.nodeID.length > CSI_NODE_ID_MAX) errs.push(tooLong(child(p, 'nodeID'), CSI_NODE_ID_MAX));
    const keys = new Set<string>();
    (d.topologyKeys ?? []).forEach((k, j) => {
      const kp = index(child(p, 'topologyKeys'), j);
      if (k === '') errs.push(required(kp));
      else errs.push(...validateQualifiedName(k, kp));
      if (keys.has(k)) errs.push(duplicate(kp, k));
      keys.add(k);
    });
    const count = d.allocatable?.count;
    if (count !== undefined && count < 0) errs.push(invalid(child(p, 'allocatable', 'count'), count, 'must be greater than or equal to 0'));
  });
  return errs;
}

export function validateCSINodeUpdate(n: CSINode, old: CSINode): ErrorList {
  const errs: ErrorList = [];
  // Drivers may be added or removed, but a driver that stays keeps its identity.
  for (const prev of old.spec?.drivers ?? []) {
    const next = n.spec?.drivers?.find((d) => d.name === prev.name);
    if (!next) continue;
    const i = n.spec?.drivers?.indexOf(next) ?? 0;
    const p = index('spec.drivers', i);
    if (next.nodeID !== prev.nodeID) errs.push(invalid(child(p, 'nodeID'), next.nodeID, 'field is immutable'));
    if (!deepEqual(next.topologyKeys ?? [], prev.topologyKeys ?? [])) errs.push(invalid(child(p, 'topologyKeys'), next.topologyKeys, 'field is immutable'));
  }
  return errs;
}

export function validateVolumeAttachment(va: VolumeAttachment): ErrorList {
  const errs = validateObjectMeta(va.metadata, false, nameIsDNSSubdomain);
  const spec = va.spec;
  errs.push(...validateCSIDriverName(spec?.attacher ?? '', 'spec.attacher'));
  const source = spec?.source ?? {};
  const hasPV = source.persistentVolumeName !== undefined;
  const hasInline = source.inlineVolumeSpec !== undefined;
  if (hasPV === hasInline) errs.push(invalid('spec.source', source, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPV && source.persistentVolumeName === '') errs.push(required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  const node = spec?.nodeName ?? '';
  if (node === '') errs.push(required('spec.nodeName'));
  else errs.push(...validateDNS1123Subdomain(node, 'spec.nodeName'));
  const status = va.status;
  if (status?.attachError?.message !== undefined && status.attachError.message.length > 1024) errs.push(tooLong('status.attachError.message', 1024));
  if (status?.detachError?.message !== undefined && status.detachError.message.length > 1024) errs.push(tooLong('status.detachError.message', 1024));
  return errs;
}

export function validateVolumeAttachmentUpdate(va: VolumeAttachment, old: VolumeAttachment): ErrorList {
  return deepEqual(va.spec, old.spec) ? [] : [invalid('spec', va.spec, 'field is immutable')];
}
