import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, decodeJwt, type JWTPayload } from 'jose';
import type { ServiceAccountKey } from './signing-key.js';
import { realClock, type Clock } from '../../base/clock.js';
import { LEGACY_ISSUER, signLegacyToken } from '../../machinery/legacy-service-account-token.js';

/** What a bound token names in its `kubernetes.io` claim. */
export interface BoundTokenClaims {
  namespace: string;
  serviceAccount: { name: string; uid: string };
  pod?: { name: string; uid: string };
  secret?: { name: string; uid: string };
  node?: { name: string; uid: string };
}

/** A verified token: who it stands for and what it is bound to. */
export interface VerifiedToken {
  namespace: string;
  name: string;
  uid: string;
  pod?: { name: string; uid: string };
  secretName?: string;
  /** A legacy (secret-based) token: valid only while its Secret holds it. */
  legacy?: boolean;
  /** The token id, for `authentication.kubernetes.io/credential-id`. */
  jti?: string;
  audiences: string[];
}

export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError';
}

/**
 * Issues and verifies service-account JWTs (RS256) as upstream: bound tokens
 * (TokenRequest) with issuer, audiences, expiry and the `kubernetes.io`
 * claim; legacy secret tokens with the `kubernetes.io/serviceaccount/*` claims.
 */
export class ServiceAccountTokens {
  constructor(
    private readonly key: ServiceAccountKey,
    readonly issuer: string,
    /** The API server's own audiences (upstream's --api-audiences, default: the issuer). */
    readonly apiAudiences: readonly string[],
    private readonly clock: Clock = realClock,
  ) {}

  get keyId(): string {
    return this.key.keyId;
  }

  get publicKey() {
    return this.key.publicKey;
  }

  async issueBound(claims: BoundTokenClaims, audiences: readonly string[], expirationSeconds: number): Promise<{ token: string; expiresAt: Date }> {
    const iat = Math.floor(this.clock.now() / 1000);
    const exp = iat + expirationSeconds;
    const k8s: Record<string, unknown> = { namespace: claims.namespace, serviceaccount: claims.serviceAccount };
    if (claims.pod) k8s.pod = claims.pod;
    if (claims.secret) k8s.secret = claims.secret;
    if (claims.node) k8s.node = claims.node;
    const token = await new SignJWT({ 'kubernetes.io': k8s })
      .setProtectedHeader({ alg: 'RS256', kid: this.key.keyId })
      .setIssuer(this.issuer)
      .setSubject(`system:serviceaccount:${claims.namespace}:${claims.serviceAccount.name}`)
      .setAudience([...audiences])
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.key.privateKey);
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** A legacy token for a `kubernetes.io/service-account-token` Secret (no expiry). */
  async issueLegacy(namespace: string, name: string, uid: string, secretName: string): Promise<string> {
    return signLegacyToken(this.key.privateKey, { namespace, serviceAccountName: name, serviceAccountUid: uid, secretName }, this.key.keyId);
  }

  /** Whether a bearer token looks like one of ours (a JWT from our issuers), before verifying it. */
  static ours(token: string, issuer: string): boolean {
    if (token.split('.').length !== 3) return false;
    try {
      const iss = decodeJwt(token).iss;
      return iss === issuer || iss === LEGACY_ISSUER;
    } catch {
      return false;
    }
  }

  /** Verifies signature, issuer, audience and times; throws InvalidTokenError with no detail worth leaking. */
  async verify(token: string, audiences: readonly string[] = this.apiAudiences): Promise<VerifiedToken> {
    let payload: JWTPayload;
    try {
      const legacy = decodeJwt(token).iss === LEGACY_ISSUER;
      ({ payload } = await jwtVerify(token, this.key.publicKey, {
        algorithms: ['RS256'],
        issuer: legacy ? LEGACY_ISSUER : this.issuer,
        audience: legacy ? undefined : [...audiences],
        currentDate: new Date(this.clock.now()),
        clockTolerance: 60,
      }));
      if (legacy) return legacyClaims(payload);
    } catch (err) {
      if (err instanceof InvalidTokenError) throw err;
      throw new InvalidTokenError('invalid bearer token', { cause: err });
    }
    const k8s = payload['kubernetes.io'] as Partial<BoundTokenClaims & { serviceaccount: { name: string; uid: string } }> | undefined;
    const sa = k8s?.serviceaccount;
    if (!k8s?.namespace || !sa?.name || !sa.uid) throw new InvalidTokenError('invalid bearer token');
    const aud = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    return { namespace: k8s.namespace, name: sa.name, uid: sa.uid, pod: k8s.pod, jti: payload.jti, audiences: aud.filter((a) => audiences.includes(a)) };
  }
}

function legacyClaims(p: JWTPayload): VerifiedToken {
  const str = (k: string) => (typeof p[k] === 'string' ? (p[k] as string) : '');
  const namespace = str('kubernetes.io/serviceaccount/namespace');
  const name = str('kubernetes.io/serviceaccount/service-account.name');
  const uid = str('kubernetes.io/serviceaccount/service-account.uid');
  const secretName = str('kubernetes.io/serviceaccount/secret.name');
  if (!namespace || !name || !uid || !secretName) throw new InvalidTokenError('invalid bearer token');
  return { namespace, name, uid, secretName, legacy: true, audiences: [] };
}
