import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../machinery/api-error.js';
import type { ApiRegistry } from '../api-registry.js';
import { InvalidTokenError, ServiceAccountTokens } from '../serviceaccount/service-account-tokens.js';
import { AuthenticationError, type Authenticated, type Authenticator } from './authenticator.js';
import { bearerToken, type TokenAuthenticator } from './bearer-token.js';
import { SERVICE_ACCOUNT_TOKEN_KEY } from '../../machinery/legacy-service-account-token.js';
import { serviceAccountGroups, serviceAccountUsername, type UserInfo } from './user-info.js';

/**
 * Service-account JWTs: a valid signature is not enough, the service account
 * (and the pod or secret the token is bound to) must still exist with the
 * same uid, as upstream's validator checks. Failures carry no detail.
 */
export class ServiceAccountTokenAuthenticator implements Authenticator, TokenAuthenticator {
  readonly name = 'serviceaccount';

  constructor(
    private readonly tokens: ServiceAccountTokens,
    private readonly registry: ApiRegistry,
  ) {}

  async authenticate(req: IncomingMessage): Promise<Authenticated | undefined> {
    const token = bearerToken(req);
    return token === undefined ? undefined : this.authenticateToken(token);
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<{ user: UserInfo; audiences: string[] } | undefined> {
    if (!ServiceAccountTokens.ours(token, this.tokens.issuer)) return undefined;
    let v;
    try {
      v = await this.tokens.verify(token, audiences?.length ? audiences : this.tokens.apiAudiences);
    } catch (err) {
      if (err instanceof InvalidTokenError) throw new AuthenticationError('invalid bearer token');
      throw err;
    }
    const sa = await this.get('serviceaccounts', v.namespace, v.name);
    if (!sa || sa.metadata?.uid !== v.uid) throw new AuthenticationError('invalid bearer token');
    const extra: Record<string, string[]> = {};
    if (v.secretName) {
      const secret = (await this.get('secrets', v.namespace, v.secretName)) as { data?: Record<string, string>; metadata?: { deletionTimestamp?: string } } | undefined;
      if (!secret || secret.metadata?.deletionTimestamp) throw new AuthenticationError('invalid bearer token');
      // a legacy token is good only while its Secret holds it (upstream: "Token does not match server's copy")
      if (v.legacy && Buffer.from(secret.data?.[SERVICE_ACCOUNT_TOKEN_KEY] ?? '', 'base64').toString() !== token) throw new AuthenticationError('invalid bearer token');
    }
    if (v.pod) {
      const pod = await this.get('pods', v.namespace, v.pod.name);
      if (!pod || pod.metadata?.uid !== v.pod.uid || pod.metadata?.deletionTimestamp) throw new AuthenticationError('invalid bearer token');
      extra['authentication.kubernetes.io/pod-name'] = [v.pod.name];
      extra['authentication.kubernetes.io/pod-uid'] = [v.pod.uid];
    }
    if (v.jti) extra['authentication.kubernetes.io/credential-id'] = [`JTI=${v.jti}`];
    const user: UserInfo = { name: serviceAccountUsername(v.namespace, v.name), uid: v.uid, groups: serviceAccountGroups(v.namespace) };
    if (Object.keys(extra).length) user.extra = extra;
    return { user, audiences: v.audiences };
  }

  private async get(resource: string, namespace: string, name: string) {
    try {
      return await this.registry.lookup('', 'v1', resource)!.get(namespace, name);
    } catch (err) {
      if (ApiError.is(err, 'NotFound')) return undefined;
      throw err;
    }
  }
}
