import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import type { TokenReview } from 'kubernetes-types/authentication/v1.js';
import { realClock, type Clock } from '../../base/clock.js';
import type { Client } from '../../client/rest/index.js';
import { SUBJECT_ACCESS_REVIEWS, TOKEN_REVIEWS } from '../../api/resource-refs.js';

/** Who called the kubelet, as the API server would name them. */
export interface KubeletUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** What a kubelet request is, as upstream's kubelet asks the authorizer (nodes/<sub> of this node). */
export interface KubeletRequestAttributes {
  verb: string;
  resource: 'nodes';
  subresource: string;
  name: string;
  path: string;
}

const METHOD_VERBS: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function isSubpath(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Upstream's GetRequestAttributes: nodes/proxy unless the path is stats, metrics, logs or checkpoint. */
export function kubeletRequestAttributes(nodeName: string, method: string, path: string): KubeletRequestAttributes {
  let subresource = 'proxy';
  if (isSubpath(path, '/stats')) subresource = 'stats';
  else if (isSubpath(path, '/metrics')) subresource = 'metrics';
  else if (isSubpath(path, '/logs')) subresource = 'log';
  else if (isSubpath(path, '/checkpoint')) subresource = 'checkpoint';
  return { verb: METHOD_VERBS[method.toUpperCase()] ?? '', resource: 'nodes', subresource, name: nodeName, path };
}

/** Upstream kubelet's 403 text. */
export function kubeletForbiddenMessage(user: KubeletUser, attrs: KubeletRequestAttributes): string {
  return `Forbidden (user=${user.username}, verb=${attrs.verb}, resource=${attrs.resource}, subresource=${attrs.subresource})`;
}

export interface KubeletAuthOptions {
  client: Client;
  nodeName: string;
  clock?: Clock;
  /** How long a token's review is believed (upstream's authentication.webhook.cacheTTL, 2 min). */
  tokenCacheMs?: number;
  /** How long an allowed / a denied access review is believed (upstream: 5 min / 30 s). */
  authorizedCacheMs?: number;
  unauthorizedCacheMs?: number;
}

interface Cached<T> {
  value: T;
  expires: number;
}

const MAX_CACHE_ENTRIES = 4096;

/**
 * The kubelet API's authentication and authorization, as upstream's
 * (webhook mode): a client certificate that chains to the client CA (checked
 * by TLS) names the user by its CN and groups by its O; a bearer token is
 * asked about with a TokenReview; every request is then asked about with a
 * SubjectAccessReview on `nodes/<subresource>` of this node. Answers are
 * cached briefly, as upstream's webhook caches do.
 */
export class KubeletAuth {
  private readonly clock: Clock;
  private readonly tokens = new Map<string, Cached<KubeletUser | undefined>>();
  private readonly decisions = new Map<string, Cached<{ allowed: boolean; reason: string }>>();

  constructor(private readonly opts: KubeletAuthOptions) {
    this.clock = opts.clock ?? realClock;
  }

  /** The caller, or undefined when it presented nothing valid (401). */
  async authenticate(req: IncomingMessage): Promise<KubeletUser | undefined> {
    const socket = req.socket as TLSSocket;
    if (socket.authorized) {
      const subject = socket.getPeerCertificate()?.subject as Record<string, string | string[] | undefined> | undefined;
      const cn = subject?.CN;
      const name = Array.isArray(cn) ? cn[0] : cn;
      if (name) {
        const o = subject?.O;
        return { username: name, groups: [...(o === undefined ? [] : Array.isArray(o) ? o : [o]), 'system:authenticated'] };
      }
    }
    const auth = req.headers.authorization ?? '';
    const m = /^bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) return undefined;
    return this.reviewToken(m[1]);
  }

  /** Whether the user may make this request (SubjectAccessReview), with the authorizer's reason. */
  async authorize(user: KubeletUser, attrs: KubeletRequestAttributes): Promise<{ allowed: boolean; reason: string }> {
    const key = JSON.stringify([user.username, user.uid, user.groups, user.extra, attrs.verb, attrs.subresource, attrs.name]);
    const hit = this.cached(this.decisions, key);
    if (hit) return hit;
    const review: SubjectAccessReview = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: user.username,
        ...(user.uid ? { uid: user.uid } : {}),
        groups: user.groups,
        ...(user.extra ? { extra: user.extra } : {}),
        resourceAttributes: { verb: attrs.verb, group: '', version: 'v1', resource: attrs.resource, subresource: attrs.subresource, name: attrs.name },
      },
    };
    const answer = await this.opts.client.resource<SubjectAccessReview>(SUBJECT_ACCESS_REVIEWS).create(review);
    const decision = { allowed: answer.status?.allowed === true && answer.status?.denied !== true, reason: answer.status?.reason ?? '' };
    this.remember(this.decisions, key, decision, decision.allowed ? (this.opts.authorizedCacheMs ?? 300_000) : (this.opts.unauthorizedCacheMs ?? 30_000));
    return decision;
  }

  private async reviewToken(token: string): Promise<KubeletUser | undefined> {
    const hit = this.tokens.get(token);
    if (hit && hit.expires > this.clock.monotonic()) return hit.value;
    const review: TokenReview = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } };
    const answer = await this.opts.client.resource<TokenReview>(TOKEN_REVIEWS).create(review);
    const u = answer.status?.authenticated ? answer.status.user : undefined;
    const user = u?.username ? { username: u.username, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups ?? [], ...(u.extra ? { extra: u.extra } : {}) } : undefined;
    this.remember(this.tokens, token, user, this.opts.tokenCacheMs ?? 120_000);
    return user;
  }

  private cached<T>(cache: Map<string, Cached<T>>, key: string): T | undefined {
    const hit = cache.get(key);
    if (!hit) return undefined;
    if (hit.expires > this.clock.monotonic()) return hit.value;
    cache.delete(key);
    return undefined;
  }

  private remember<T>(cache: Map<string, Cached<T>>, key: string, value: T, ttlMs: number): void {
    // a bounded cache: the oldest entry goes first
    if (cache.size >= MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, { value, expires: this.clock.monotonic() + ttlMs });
  }
}
