import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { KubeObject } from '../../../api/object.js';
import type { ResourceInfo } from '../../../api/resource-info.js';
import { validateObject, validateObjectUpdate } from '../../../api/validation/index.js';
import { defaultStrategy } from '../../registry/default-strategy.js';
import type { Strategy } from '../../registry/strategy.js';
import { validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyBinding } from './policy-validation.js';

const asPolicy = (o: KubeObject) => o as unknown as ValidatingAdmissionPolicy;
const asBinding = (o: KubeObject) => o as unknown as ValidatingAdmissionPolicyBinding;

/** ValidatingAdmissionPolicy: spec changes bump the generation; expressions must compile. */
export function validatingAdmissionPolicyStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    tracksGeneration: true,
    validate: (obj) => [...validateObject(obj, info), ...validateValidatingAdmissionPolicy(asPolicy(obj))],
    validateUpdate: (obj, old) => [...validateObjectUpdate(obj, old, info), ...validateValidatingAdmissionPolicy(asPolicy(obj))],
  });
}

export function validatingAdmissionPolicyBindingStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    validate: (obj) => [...validateObject(obj, info), ...validateValidatingAdmissionPolicyBinding(asBinding(obj))],
    validateUpdate: (obj, old) => [...validateObjectUpdate(obj, old, info), ...validateValidatingAdmissionPolicyBinding(asBinding(obj))],
  });
}
