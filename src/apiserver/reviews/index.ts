import type { Authorizer } from '../authorization/authorizer.js';
import { localSubjectAccessReview, selfSubjectAccessReview, selfSubjectRulesReview, subjectAccessReview } from './access-reviews.js';
import type { ReviewHandler, ReviewHandlers } from './review-handler.js';
import { selfSubjectReview } from './self-subject-review.js';

export type { ReviewContext, ReviewHandler, ReviewHandlers } from './review-handler.js';

export interface ReviewDeps {
  /** The chain that guards requests: access reviews ask it. */
  authorizer: Authorizer;
  /** The chain's members, for the rules review (those that can list their rules). */
  authorizers: readonly Authorizer[];
  /** TokenReview, when bearer tokens are configured. */
  tokenReview?: ReviewHandler;
  /** serviceaccounts/<name>/token, when a service-account signing key is configured. */
  tokenRequest?: ReviewHandler;
}

/** The review resources the API server answers, by `group/resource`. */
export function reviewHandlers(deps: ReviewDeps): ReviewHandlers {
  const handlers = new Map<string, ReviewHandler>([
    ['authorization.k8s.io/selfsubjectaccessreviews', selfSubjectAccessReview(deps.authorizer)],
    ['authorization.k8s.io/subjectaccessreviews', subjectAccessReview(deps.authorizer)],
    ['authorization.k8s.io/localsubjectaccessreviews', localSubjectAccessReview(deps.authorizer)],
    ['authorization.k8s.io/selfsubjectrulesreviews', selfSubjectRulesReview(deps.authorizers)],
    ['authentication.k8s.io/selfsubjectreviews', selfSubjectReview],
  ]);
  if (deps.tokenReview) handlers.set('authentication.k8s.io/tokenreviews', deps.tokenReview);
  if (deps.tokenRequest) handlers.set('/serviceaccounts/token', deps.tokenRequest);
  return handlers;
}
