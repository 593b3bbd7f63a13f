import type { UserInfo } from '../authentication/user-info.js';
import type { RequestInfo } from '../request-info.js';

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
    name: info.name,
    path: info.path,
  };
}

export const NO_OPINION: AuthorizationResult = { decision: 'NoOpinion', reason: '' };
