import { PVC_PROTECTION_FINALIZER, PV_PROTECTION_FINALIZER } from '../../machinery/volume-binding.js';
import type { AdmissionAttributes, MutatingAdmission, Operation } from './admission.js';

/**
 * StorageObjectInUseProtection admission: every new PersistentVolumeClaim
 * gets the `kubernetes.io/pvc-protection` finalizer and every new
 * PersistentVolume `kubernetes.io/pv-protection`, so deleting one only marks
 * it until the pvc-protection / pv-protection controllers see it unused.
 */
export class StorageObjectInUseProtection implements MutatingAdmission {
  readonly name = 'StorageObjectInUseProtection';

  handles(operation: Operation): boolean {
    return operation === 'CREATE';
  }

  admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.subresource || !attrs.object) return Promise.resolve();
    const finalizer = attrs.resource.resource === 'persistentvolumeclaims' ? PVC_PROTECTION_FINALIZER : attrs.resource.resource === 'persistentvolumes' ? PV_PROTECTION_FINALIZER : undefined;
    if (!finalizer) return Promise.resolve();
    const meta = (attrs.object.metadata ??= {});
    if (!(meta.finalizers ?? []).includes(finalizer)) meta.finalizers = [...(meta.finalizers ?? []), finalizer];
    return Promise.resolve();
  }
}
