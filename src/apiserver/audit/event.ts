import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { UserInfo } from '../authentication/user-info.js';
import type { Level, Stage } from './policy.js';

/** authentication.k8s.io/v1 UserInfo as an audit event carries it. */
export interface EventUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** The bounded fields of the response's Status (upstream copies only these). */
export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code?: number;
}

/** audit.k8s.io/v1 Event; the property order is upstream's, so JSON lines read the same. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: EventUser;
  impersonatedUser?: EventUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

export function eventUser(user: UserInfo | undefined): EventUser {
  if (!user) return {};
  return {
    username: user.name,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length ? { groups: [...user.groups] } : {}),
    ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
  };
}

/** metav1.MicroTime's JSON form: RFC 3339 with six fractional digits, UTC. */
export function microTime(d: Date, extraMicros = 0): string {
  return `${d.toISOString().slice(0, 19)}.${String(d.getUTCMilliseconds() * 1000 + extraMicros).padStart(6, '0')}Z`;
}

/** The client's addresses as upstream's SourceIPs: X-Forwarded-For, then X-Real-Ip, then the peer, without repeats. */
export function sourceIPs(req: Pick<IncomingMessage, 'headers' | 'socket'>): string[] {
  const out: string[] = [];
  const add = (ip: string | undefined) => {
    const v = ip?.trim();
    if (v && isIP(v) && !out.includes(v)) out.push(v);
  };
  const forwarded = req.headers['x-forwarded-for'];
  for (const part of (Array.isArray(forwarded) ? forwarded.join(',') : forwarded ?? '').split(',')) add(part);
  const real = req.headers['x-real-ip'];
  add(Array.isArray(real) ? real[0] : real);
  add(req.socket?.remoteAddress?.replace(/^::ffff:/, ''));
  return out;
}
