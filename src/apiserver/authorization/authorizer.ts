import type { UserInfo } from '../authentication/user-info.js';
import type { RequestInfo } from '../request-info.js';
import { parseFieldSelector, type FieldRequirement } from '../../machinery/fields/field-selector.js';

/** What a request wants to do, as upstream's authorizer.Attributes. */
export interface Attributes {
  user: UserInfo;
  verb: string;
  /** True for /api and /apis resource URLs; false for paths such as /healthz. */
  resourceRequest: boolean;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** The URL path (what non-resource rules match). */
  path: string;
  /** A list's or watch's field selector terms (upstream's GetFieldSelector), when it has one that parses. */
  fieldSelector?: readonly FieldRequirement[];
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why, for the 403 message and (later) audit; may be empty. */
  reason: string;
}

/** One way of deciding whether a user may do something (RBAC, Node, webhook, …). */
export interface Authorizer {
  readonly name: string;
  authorize(attrs: Attributes): Promise<AuthorizationResult>;
}

/** The attributes of a parsed request for its user. */
export function attributesOf(info: RequestInfo, user: UserInfo): Attributes {
  const fieldSelector = selectorTerms(info.fieldSelector);
  // as upstream's RequestInfoFactory, a list or watch of one object by metadata.name carries that name
  const byName = fieldSelector?.find((r) => r.field === 'metadata.name' && r.operator === '=')?.value;
  return {
    user,
    verb: info.verb,
    resourceRequest: info.isResourceRequest,
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource,
    // upstream's RequestInfo puts a namespace request in its own namespace, so a RoleBinding may grant it
    namespace: info.group === '' && info.resource === 'namespaces' && info.name ? info.name : info.namespace,
    name: info.name || byName || '',
    path: info.path,
    ...(fieldSelector ? { fieldSelector } : {}),
  };
}

function selectorTerms(raw: string | undefined): readonly FieldRequirement[] | undefined {
  if (!raw) return undefined;
  try {
    return parseFieldSelector(raw).requirements();
  } catch {
    return undefined;
  }
}

export const NO_OPINION: AuthorizationResult = { decision: 'NoOpinion', reason: '' };
