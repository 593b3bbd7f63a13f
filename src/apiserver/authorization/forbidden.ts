import { ApiError } from '../../machinery/api-error.js';
import type { Attributes } from './authorizer.js';

/** upstream's forbiddenMessage: who cannot do what, where. */
export function forbiddenMessage(attrs: Attributes): string {
  const user = attrs.user.name;
  if (!attrs.resourceRequest) return `User "${user}" cannot ${attrs.verb} path "${attrs.path}"`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const where = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
  return `User "${user}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}" ${where}`;
}

/**
 * The 403 an authorization denial renders as, worded as upstream's
 * responsewriters.Forbidden + apierrors.NewForbidden:
 * `pods "x" is forbidden: User "u" cannot get resource "pods" in API group "" in the namespace "ns"`.
 */
export function forbiddenError(attrs: Attributes, reason: string): ApiError {
  const message = reason ? `${forbiddenMessage(attrs)}: ${reason}` : forbiddenMessage(attrs);
  if (!attrs.resourceRequest) return new ApiError(403, 'Forbidden', `forbidden: ${message}`, {});
  const qualified = attrs.apiGroup ? `${attrs.resource}.${attrs.apiGroup}` : attrs.resource;
  const subject = attrs.name ? `${qualified} "${attrs.name}"` : qualified;
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${message}`, {
    name: attrs.name || undefined,
    group: attrs.apiGroup || undefined,
    kind: attrs.resource,
  });
}
