import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { asKind } from '../../api/object.js';
import { BETA_STORAGE_CLASS_ANNOTATION, pickDefaultStorageClass } from '../../api/storage-class.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes, MutatingAdmission, Operation } from './admission.js';

/**
 * DefaultStorageClass admission: a new claim that names no class (neither
 * `storageClassName`, not even "", nor the beta annotation) gets the default
 * StorageClass's name, when one is marked default.
 */
export class DefaultStorageClass implements MutatingAdmission {
  readonly name = 'DefaultStorageClass';

  constructor(private readonly storageClasses: () => RegistryStore | undefined) {}

  handles(operation: Operation): boolean {
    return operation === 'CREATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.resource.resource !== 'persistentvolumeclaims' || attrs.subresource || !attrs.object) return;
    const pvc = asKind<PersistentVolumeClaim>(attrs.object) as PersistentVolumeClaim;
    if (pvc.spec?.storageClassName !== undefined || pvc.metadata?.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] !== undefined) return;
    const store = this.storageClasses();
    if (!store) return;
    const list = await store.list('', {});
    const def = pickDefaultStorageClass(list.items.map((i) => asKind<StorageClass>(i) as StorageClass));
    if (!def?.metadata?.name) return;
    pvc.spec = { ...(pvc.spec ?? {}), storageClassName: def.metadata.name };
  }
}
