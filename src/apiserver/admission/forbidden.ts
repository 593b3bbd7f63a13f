import { ApiError } from '../../machinery/api-error.js';
import type { AdmissionAttributes } from './admission.js';

/**
 * An admission rejection as upstream's admission.NewForbidden words it:
 * `pods "web" is forbidden: <why>`.
 */
export function admissionForbidden(attrs: AdmissionAttributes, why: string, causes?: { reason: string; message: string; field?: string }[]): ApiError {
  const { group, resource } = attrs.resource;
  const qualified = group ? `${resource}.${group}` : resource;
  const name = attrs.name || attrs.object?.metadata?.name || '';
  return new ApiError(403, 'Forbidden', `${qualified} "${name}" is forbidden: ${why}`, {
    name,
    group: group || undefined,
    kind: resource,
    causes,
  });
}
