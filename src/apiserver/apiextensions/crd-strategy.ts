import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import { formatTime } from '../../machinery/time.js';
import { defaultStrategy } from '../registry/default-strategy.js';
import type { Strategy } from '../registry/strategy.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './crd-validation.js';

/**
 * customresourcedefinitions.apiextensions.k8s.io: upstream's defaults
 * (singular and listKind from kind, conversion None), status only through
 * /status, storedVersions recording every storage version ever used, and
 * generation bumped by spec changes.
 */
export function crdStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    tracksGeneration: true,
    prepareForCreate(obj) {
      const crd = asCrd(obj);
      setDefaults(crd);
      const storage = storageVersion(crd);
      crd.status = { acceptedNames: { plural: '', kind: '' }, storedVersions: storage ? [storage] : [] } as CustomResourceDefinition['status'];
      delete (crd.status as { conditions?: unknown }).conditions;
    },
    prepareForUpdate(obj, old) {
      const crd = asCrd(obj);
      setDefaults(crd);
      crd.status = structuredClone(asCrd(old).status);
      const storage = storageVersion(crd);
      if (crd.status && storage && !(crd.status.storedVersions ?? []).includes(storage)) {
        crd.status.storedVersions = [...(crd.status.storedVersions ?? []), storage];
      }
    },
    prepareForDelete(obj, { now }) {
      // as upstream's CRD REST delete: marked Terminating, kept until its custom resources are gone
      const crd = asCrd(obj);
      if (crd.metadata?.deletionTimestamp) return !instancesDeleted(crd);
      const conditions = ((crd.status ??= { acceptedNames: { plural: '', kind: '' } }).conditions ??= []);
      const stamp = conditions.find((c) => c.type === 'Terminating');
      const terminating = { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' };
      if (stamp) Object.assign(stamp, terminating);
      else conditions.push({ ...terminating, lastTransitionTime: formatTime(now) });
      return true;
    },
    readyToDelete: (obj) => (obj.metadata?.finalizers ?? []).length === 0 && instancesDeleted(asCrd(obj)),
    validate: (obj) => validateCustomResourceDefinition(asCrd(obj)),
    validateUpdate: (obj, old) => validateCustomResourceDefinitionUpdate(asCrd(obj), asCrd(old)),
  });
}

/** Set by the CRD controller once every custom resource of a CRD being deleted is gone. */
export function instancesDeleted(crd: CustomResourceDefinition): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === 'Terminating' && c.reason === 'InstanceDeletionCompleted');
}

function asCrd(obj: KubeObject): CustomResourceDefinition {
  return obj as unknown as CustomResourceDefinition;
}

function storageVersion(crd: CustomResourceDefinition): string | undefined {
  return (crd.spec?.versions ?? []).find((v) => v.storage)?.name;
}

/** Upstream's SetDefaults for apiextensions/v1 CRDs. */
export function setDefaults(crd: CustomResourceDefinition): void {
  const spec = crd.spec;
  if (!spec) return;
  const names = spec.names;
  if (names) {
    if (!names.singular && names.kind) names.singular = names.kind.toLowerCase();
    if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
  if (spec.conversion.strategy === 'Webhook') {
    const service = spec.conversion.webhook?.clientConfig?.service;
    if (service && service.port === undefined) service.port = 443;
  }
}
