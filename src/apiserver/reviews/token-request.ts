import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import type { KubeObject } from '../../api/object.js';
import { invalid as invalidField } from '../../api/validation/errors.js';
import { ApiError, badRequest, notFound } from '../../machinery/api-error.js';
import { invalid } from '../../machinery/invalid.js';
import type { ApiRegistry } from '../api-registry.js';
import type { BoundTokenClaims, ServiceAccountTokens } from '../serviceaccount/service-account-tokens.js';
import type { ReviewHandler } from './review-handler.js';

const MIN_SECONDS = 600;
const MAX_SECONDS = 2 ** 32;
const DEFAULT_SECONDS = 3600;

/**
 * `serviceaccounts/<name>/token` (TokenRequest; `kubectl create token`): a
 * bound token for an existing service account, optionally bound to a Pod or
 * Secret that must exist, expiring after spec.expirationSeconds (default 1 h,
 * at least 10 minutes).
 */
export function tokenRequest(tokens: ServiceAccountTokens, registry: ApiRegistry): ReviewHandler {
  const get = async (resource: string, namespace: string, name: string) => {
    try {
      return await registry.lookup('', 'v1', resource)!.get(namespace, name);
    } catch (err) {
      if (ApiError.is(err, 'NotFound')) return undefined;
      throw err;
    }
  };
  return async (obj: KubeObject, ctx) => {
    const req = obj as unknown as TokenRequest;
    const spec = req.spec ?? { audiences: [] };
    const seconds = spec.expirationSeconds ?? DEFAULT_SECONDS;
    if (seconds < MIN_SECONDS) throw invalid({ group: 'authentication.k8s.io', kind: 'TokenRequest' }, ctx.name, [invalidField('spec.expirationSeconds', seconds, 'may not specify a duration less than 10 minutes')]);
    if (seconds > MAX_SECONDS) throw invalid({ group: 'authentication.k8s.io', kind: 'TokenRequest' }, ctx.name, [invalidField('spec.expirationSeconds', seconds, 'may not specify a duration larger than 2^32 seconds')]);
    const sa = await get('serviceaccounts', ctx.namespace, ctx.name);
    if (!sa) throw notFound({ group: '', resource: 'serviceaccounts' }, ctx.name);
    const claims: BoundTokenClaims = { namespace: ctx.namespace, serviceAccount: { name: ctx.name, uid: sa.metadata?.uid ?? '' } };
    const ref = spec.boundObjectRef;
    const boundRef = ref ? { ...ref } : undefined;
    if (ref) {
      const resource = ref.kind === 'Pod' ? 'pods' : ref.kind === 'Secret' ? 'secrets' : undefined;
      if (!resource || (ref.apiVersion ?? 'v1') !== 'v1') throw badRequest(`cannot bind token to object of type ${ref.apiVersion ?? ''}, Kind=${ref.kind ?? ''}`);
      const target = await get(resource, ctx.namespace, ref.name ?? '');
      if (!target) throw notFound({ group: '', resource }, ref.name ?? '');
      const uid = target.metadata?.uid ?? '';
      if (ref.uid && ref.uid !== uid) throw new ApiError(409, 'Conflict', `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
      claims[ref.kind === 'Pod' ? 'pod' : 'secret'] = { name: ref.name ?? '', uid };
      boundRef!.uid = uid;
    }
    const audiences = spec.audiences?.length ? spec.audiences : [...tokens.apiAudiences];
    const { token, expiresAt } = await tokens.issueBound(claims, audiences, seconds);
    const answer: Record<string, unknown> = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { name: ctx.name, namespace: ctx.namespace, creationTimestamp: null },
      spec: { audiences, expirationSeconds: seconds, ...(boundRef ? { boundObjectRef: boundRef } : {}) },
      status: { token, expirationTimestamp: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') },
    };
    return answer as KubeObject;
  };
}
