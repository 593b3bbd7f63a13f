import type { IncomingMessage } from 'node:http';
import { internalError } from '../../machinery/api-error.js';
import {
  ANONYMOUS_USER,
  serviceAccountGroups,
  serviceAccountUsername,
  splitServiceAccountUsername,
  SYSTEM_AUTHENTICATED,
  SYSTEM_UNAUTHENTICATED,
  type UserInfo,
} from '../authentication/user-info.js';
import type { Attributes, Authorizer } from '../authorization/authorizer.js';
import { forbiddenError } from '../authorization/forbidden.js';

export const IMPERSONATE_USER = 'impersonate-user';
export const IMPERSONATE_GROUP = 'impersonate-group';
export const IMPERSONATE_UID = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

/** One thing a request asks to act as; each is authorized on its own with verb `impersonate`. */
interface ImpersonationRequest {
  apiGroup: string;
  resource: 'users' | 'serviceaccounts' | 'groups' | 'uids' | 'userextras';
  namespace: string;
  name: string;
  /** The extra's key, for userextras. */
  subresource: string;
}

/**
 * Impersonation (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-<key>`): the
 * authenticated user acts as another, if the authorizer lets it `impersonate`
 * every requested user, service account, group, uid and extra value. Returns
 * the user the rest of the pipeline sees (the requester when no headers are
 * set) and removes the headers, as upstream's WithImpersonation.
 */
export async function impersonate(
  req: Pick<IncomingMessage, 'headers' | 'headersDistinct'>,
  requester: UserInfo,
  authorizer: Authorizer,
): Promise<UserInfo> {
  const requests = impersonationRequests(req.headersDistinct);
  if (requests.length === 0) return requester;
  let name = '';
  let uid: string | undefined;
  let groups: string[] = [];
  const groupsSpecified = requests.some((r) => r.resource === 'groups');
  const extra: Record<string, string[]> = {};
  for (const request of requests) {
    const attrs: Attributes = {
      user: requester,
      verb: 'impersonate',
      resourceRequest: true,
      apiGroup: request.apiGroup,
      apiVersion: '',
      resource: request.resource,
      subresource: request.subresource,
      namespace: request.namespace,
      name: request.name,
      path: '',
    };
    switch (request.resource) {
      case 'serviceaccounts':
        name = serviceAccountUsername(request.namespace, request.name);
        if (!groupsSpecified) groups = serviceAccountGroups(request.namespace);
        break;
      case 'users':
        name = request.name;
        break;
      case 'groups':
        groups.push(request.name);
        break;
      case 'uids':
        uid = request.name;
        break;
      case 'userextras':
        (extra[request.subresource] ??= []).push(request.name);
        break;
    }
    const { decision, reason } = await authorizer.authorize(attrs);
    if (decision !== 'Allow') throw forbiddenError(attrs, reason);
  }
  if (name !== ANONYMOUS_USER) {
    if (!groups.includes(SYSTEM_AUTHENTICATED) && !groups.includes(SYSTEM_UNAUTHENTICATED)) groups.push(SYSTEM_AUTHENTICATED);
  } else if (!groups.includes(SYSTEM_UNAUTHENTICATED)) {
    groups.push(SYSTEM_UNAUTHENTICATED);
  }
  for (const header of Object.keys(req.headers)) {
    if (header === IMPERSONATE_USER || header === IMPERSONATE_GROUP || header === IMPERSONATE_UID || header.startsWith(IMPERSONATE_EXTRA_PREFIX)) {
      delete req.headers[header];
    }
  }
  const user: UserInfo = { name, groups };
  if (uid !== undefined) user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}

/** The impersonation headers as separate requests; groups, uid or extras without a user are an error (500, as upstream). */
export function impersonationRequests(headers: NodeJS.Dict<string[]>): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const user = headerValues(headers[IMPERSONATE_USER])[0] ?? '';
  if (user) {
    const sa = splitServiceAccountUsername(user);
    requests.push(sa
      ? { apiGroup: '', resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name, subresource: '' }
      : { apiGroup: '', resource: 'users', namespace: '', name: user, subresource: '' });
  }
  const others: ImpersonationRequest[] = [];
  for (const group of headerValues(headers[IMPERSONATE_GROUP])) {
    others.push({ apiGroup: '', resource: 'groups', namespace: '', name: group, subresource: '' });
  }
  for (const [header, value] of Object.entries(headers)) {
    if (!header.startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    const key = unescapeExtraKey(header.slice(IMPERSONATE_EXTRA_PREFIX.length).toLowerCase());
    for (const v of headerValues(value)) {
      others.push({ apiGroup: 'authentication.k8s.io', resource: 'userextras', namespace: '', name: v, subresource: key });
    }
  }
  const uid = headerValues(headers[IMPERSONATE_UID])[0];
  if (uid) others.push({ apiGroup: 'authentication.k8s.io', resource: 'uids', namespace: '', name: uid, subresource: '' });
  if (others.length > 0 && !user) {
    throw internalError(`requested ${others.map(describe).join(' ')} without impersonating a user`);
  }
  return [...requests, ...others];
}

function describe(r: ImpersonationRequest): string {
  const kind = { users: 'User', serviceaccounts: 'ServiceAccount', groups: 'Group', uids: 'UID', userextras: 'UserExtra' }[r.resource];
  return `{${kind} ${r.name}}`;
}

function headerValues(v: string[] | undefined): string[] {
  return (v ?? []).filter((s) => s !== '');
}

/** Extra keys are percent-encoded in header names (upstream: unescapeExtraKey). */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}
