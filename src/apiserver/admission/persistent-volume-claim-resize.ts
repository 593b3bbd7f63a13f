import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { asKind } from '../../api/object.js';
import { requestedStorage, storageClassOf } from '../../machinery/volume-binding.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes, Operation, ValidatingAdmission } from './admission.js';
import { admissionForbidden } from './forbidden.js';

/**
 * PersistentVolumeClaimResize admission: a claim's storage request may grow
 * only once the claim is Bound, and only if it keeps its StorageClass and
 * that class says `allowVolumeExpansion: true` (upstream's messages).
 * Shrinking is validation's business, not this plugin's.
 */
export class PersistentVolumeClaimResize implements ValidatingAdmission {
  readonly name = 'PersistentVolumeClaimResize';

  constructor(private readonly storageClasses: () => RegistryStore | undefined) {}

  handles(operation: Operation): boolean {
    return operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.resource.resource !== 'persistentvolumeclaims' || attrs.subresource || !attrs.object || !attrs.oldObject) return;
    const pvc = asKind<PersistentVolumeClaim>(attrs.object) as PersistentVolumeClaim;
    const old = asKind<PersistentVolumeClaim>(attrs.oldObject) as PersistentVolumeClaim;
    if (requestedStorage(pvc).cmp(requestedStorage(old)) <= 0) return;
    if (old.status?.phase !== 'Bound') throw admissionForbidden(attrs, 'Only bound persistent volume claims can be expanded');
    if (!(await this.allowsResize(pvc, old))) {
      throw admissionForbidden(attrs, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    }
  }

  private async allowsResize(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): Promise<boolean> {
    const name = storageClassOf(pvc);
    if (!name || name !== storageClassOf(old)) return false;
    const store = this.storageClasses();
    if (!store) return false;
    try {
      const sc = asKind<StorageClass>(await store.get('', name)) as StorageClass;
      return sc.allowVolumeExpansion === true;
    } catch {
      return false; // no such class: nothing says it may grow
    }
  }
}
