import type { KubeObject } from '../../api/object.js';
import type { Operation } from '../admission/admission.js';

/**
 * Admission as the store calls it, bound by the handler to the request
 * (user, resource, subresource, dry run). The store calls `mutate` before
 * defaulting and validation and `validate` after them, just before it writes,
 * so every write (create-on-update and create-on-apply included) is admitted
 * for the operation it really is.
 */
export interface WriteAdmission {
  mutate(operation: Operation, object: KubeObject | undefined, oldObject: KubeObject | undefined): Promise<void>;
  validate(operation: Operation, object: KubeObject | undefined, oldObject: KubeObject | undefined): Promise<void>;
}
