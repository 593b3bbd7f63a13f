import { randomInt } from 'node:crypto';
import type { Secret } from 'kubernetes-types/core/v1.js';

/**
 * Bootstrap tokens (upstream's k8s.io/cluster-bootstrap): `<id>.<secret>`
 * bearer tokens backed by `bootstrap-token-<id>` Secrets of type
 * `bootstrap.kubernetes.io/token` in kube-system. Shared by the API server's
 * authenticator, the token cleaner and `skiff token`.
 */
export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';
/** kubeadm's default group for node join tokens, which the default bindings let create and auto-approve node CSRs. */
export const DEFAULT_NODE_TOKEN_GROUP = 'system:bootstrappers:kubeadm:default-node-token';

export const TOKEN_KEYS = {
  id: 'token-id',
  secret: 'token-secret',
  expiration: 'expiration',
  description: 'description',
  extraGroups: 'auth-extra-groups',
  usageAuthentication: 'usage-bootstrap-authentication',
  usageSigning: 'usage-bootstrap-signing',
} as const;

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** The id and secret of a well-formed token, else undefined (not a bootstrap token). */
export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN.exec(token);
  return m ? { id: m[1], secret: m[2] } : undefined;
}

/** A fresh random token, as `kubeadm token generate`. */
export function generateBootstrapToken(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const pick = (n: number) => Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join('');
  return `${pick(6)}.${pick(16)}`;
}

/** A Secret's value (data is base64, as stored). */
export function secretValue(secret: Secret, key: string): string | undefined {
  const v = secret.data?.[key];
  return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
}

/** Whether the token's `expiration` (RFC 3339) has passed; an unparseable one counts as expired. */
export function bootstrapTokenExpired(secret: Secret, now: Date): boolean {
  const exp = secretValue(secret, TOKEN_KEYS.expiration);
  if (!exp) return false;
  const t = Date.parse(exp);
  return Number.isNaN(t) || t <= now.getTime();
}

/** system:bootstrappers plus the valid extra groups; throws on an invalid group, as upstream's GetGroups. */
export function bootstrapTokenGroups(secret: Secret): string[] {
  const groups = [BOOTSTRAPPERS_GROUP];
  for (const g of (secretValue(secret, TOKEN_KEYS.extraGroups) ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!GROUP.test(g)) throw new Error(`bootstrap group "${g}" is invalid (must match ${GROUP.source})`);
    if (!groups.includes(g)) groups.push(g);
  }
  return groups;
}

export interface BootstrapTokenOptions {
  token: string;
  /** Absolute expiry; undefined never expires. */
  expires?: Date;
  description?: string;
  groups?: readonly string[];
  usages?: readonly ('authentication' | 'signing')[];
}

/** The kube-system Secret that makes a token valid. */
export function bootstrapTokenSecret(o: BootstrapTokenOptions): Secret {
  const parsed = parseBootstrapToken(o.token);
  if (!parsed) throw new Error(`the bootstrap token "${o.token}" was not of the form "[a-z0-9]{6}.[a-z0-9]{16}"`);
  const stringData: Record<string, string> = { [TOKEN_KEYS.id]: parsed.id, [TOKEN_KEYS.secret]: parsed.secret };
  if (o.description) stringData[TOKEN_KEYS.description] = o.description;
  if (o.expires) stringData[TOKEN_KEYS.expiration] = o.expires.toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (const u of o.usages ?? ['authentication', 'signing']) stringData[`usage-bootstrap-${u}`] = 'true';
  if (o.groups?.length) stringData[TOKEN_KEYS.extraGroups] = o.groups.join(',');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${parsed.id}`, namespace: BOOTSTRAP_TOKEN_NAMESPACE },
    type: BOOTSTRAP_TOKEN_SECRET_TYPE,
    stringData,
  };
}
