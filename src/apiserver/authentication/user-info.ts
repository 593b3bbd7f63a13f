/** Who sent a request, as the authenticators (and impersonation) decided. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  /** Further attributes (e.g. scopes, the pod a token is bound to); keys are lower case. */
  extra?: Record<string, string[]>;
}

/** Groups and users with a meaning in every cluster (upstream `user` package). */
export const SYSTEM_AUTHENTICATED = 'system:authenticated';
export const SYSTEM_UNAUTHENTICATED = 'system:unauthenticated';
export const SYSTEM_MASTERS = 'system:masters';
export const ANONYMOUS_USER = 'system:anonymous';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;
}

/** The groups every service account of a namespace is in. */
export function serviceAccountGroups(namespace: string): string[] {
  return ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
}

/** Splits a service account's username into namespace and name, or undefined for other users. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}
