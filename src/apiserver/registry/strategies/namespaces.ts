import type { Namespace } from 'kubernetes-types/core/v1.js';
import { asKind, type KubeObject } from '../../../api/object.js';
import type { ResourceInfo } from '../../../api/resource-info.js';
import { defaultStrategy, metadataFields } from '../default-strategy.js';
import type { Strategy } from '../strategy.js';

/**
 * Namespaces: deleting one marks it Terminating; the namespace controller
 * empties it and removes the `kubernetes` finalizer through /finalize, and then
 * it goes away.
 */
export function namespaceStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    prepareForCreate(obj) {
      asKind<Namespace>(obj).status = { phase: 'Active' };
    },
    prepareForUpdate(obj, old) {
      // spec.finalizers only change through /finalize
      const ns = asKind<Namespace>(obj);
      ns.status = asKind<Namespace>(old).status;
      ns.spec = asKind<Namespace>(old).spec;
      if (ns.spec === undefined) delete ns.spec;
    },
    selectableFields(obj) {
      return { ...metadataFields(obj, info), 'status.phase': asKind<Namespace>(obj).status?.phase ?? '' };
    },
    prepareForDelete(obj) {
      const ns = asKind<Namespace>(obj);
      ns.status = { ...ns.status, phase: 'Terminating' };
      return (ns.spec?.finalizers ?? []).length > 0;
    },
    readyToDelete(obj: KubeObject) {
      const ns = asKind<Namespace>(obj);
      return (ns.metadata?.finalizers ?? []).length === 0 && (ns.spec?.finalizers ?? []).length === 0;
    },
    returnDeletedObject: true,
  });
}
