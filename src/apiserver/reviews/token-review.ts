import type { TokenReview } from 'kubernetes-types/authentication/v1.js';
import type { KubeObject } from '../../api/object.js';
import { AuthenticationError } from '../authentication/authenticator.js';
import type { TokenAuthenticator } from '../authentication/bearer-token.js';
import type { ReviewHandler } from './review-handler.js';

/**
 * authentication.k8s.io/v1 TokenReview: who a bearer token stands for,
 * answered by the same token authenticators as requests (how kubelets and
 * aggregated servers check the tokens they receive).
 */
export function tokenReview(authenticators: readonly TokenAuthenticator[]): ReviewHandler {
  return async (obj: KubeObject) => {
    const review = obj as unknown as TokenReview;
    const token = review.spec?.token ?? '';
    const audiences = review.spec?.audiences ?? [];
    const done = (status: Record<string, unknown>) => ({ ...obj, metadata: { ...(obj.metadata ?? {}), creationTimestamp: undefined }, status }) as KubeObject;
    const errors: string[] = [];
    for (const a of authenticators) {
      try {
        const r = await a.authenticateToken(token, audiences);
        if (!r) continue;
        const user: Record<string, unknown> = { username: r.user.name, uid: r.user.uid ?? '', groups: [...r.user.groups, 'system:authenticated'] };
        if (r.user.extra) user.extra = r.user.extra;
        const status: Record<string, unknown> = { authenticated: true, user };
        const aud = r.audiences ?? audiences;
        if (aud.length) status.audiences = aud;
        return done(status);
      } catch (err) {
        if (!(err instanceof AuthenticationError)) throw err;
        errors.push(err.message);
      }
    }
    return done({ user: {}, error: errors.length ? `[${errors.join(', ')}]` : '' });
  };
}
