import type {
  LocalSubjectAccessReview,
  NonResourceAttributes,
  ResourceAttributes,
  SelfSubjectAccessReview,
  SelfSubjectRulesReview,
  SubjectAccessReview,
  SubjectAccessReviewStatus,
} from 'kubernetes-types/authorization/v1.js';
import type { KubeObject } from '../../api/object.js';
import type { FieldError } from '../../api/validation/field-error.js';
import { invalid as invalidField, required } from '../../api/validation/errors.js';
import { badRequest } from '../../machinery/api-error.js';
import { invalid } from '../../machinery/invalid.js';
import type { UserInfo } from '../authentication/user-info.js';
import type { Attributes, Authorizer } from '../authorization/authorizer.js';
import { isRuleResolver, unionRules, type RuleResolver } from '../authorization/rules-review.js';
import type { ReviewContext, ReviewHandler } from './review-handler.js';

/**
 * authorization.k8s.io/v1 reviews: "may this user do that?"
 * (SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview,
 * which `kubectl auth can-i` sends) and "what may I do here?"
 * (SelfSubjectRulesReview, `kubectl auth can-i --list`), answered by the
 * same authorizer chain that guards requests.
 */

const GROUP = 'authorization.k8s.io';

function attributesFor(user: UserInfo, spec: { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: NonResourceAttributes }): Attributes {
  const r = spec.resourceAttributes;
  if (r) {
    return {
      user,
      verb: r.verb ?? '',
      resourceRequest: true,
      apiGroup: r.group ?? '',
      apiVersion: r.version ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      namespace: r.namespace ?? '',
      name: r.name ?? '',
      path: '',
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return { user, verb: n.verb ?? '', resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path: n.path ?? '' };
}

/** Upstream's ValidateSelfSubjectAccessReviewSpec: exactly one kind of attributes. */
function validateAttributes(spec: { resourceAttributes?: unknown; nonResourceAttributes?: unknown }): FieldError[] {
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    return [invalidField('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes')];
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    return [required('spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  }
  return [];
}

async function decide(authorizer: Authorizer, attrs: Attributes): Promise<SubjectAccessReviewStatus> {
  const { decision, reason } = await authorizer.authorize(attrs);
  const status: SubjectAccessReviewStatus = { allowed: decision === 'Allow' };
  if (decision === 'Deny') status.denied = true;
  if (reason) status.reason = reason;
  return status;
}

function answer(obj: KubeObject, status: SubjectAccessReviewStatus): KubeObject {
  return { ...obj, metadata: { ...(obj.metadata ?? {}), creationTimestamp: undefined }, status };
}

export function selfSubjectAccessReview(authorizer: Authorizer): ReviewHandler {
  return async (obj, ctx) => {
    const review = obj as unknown as SelfSubjectAccessReview;
    const spec = review.spec ?? {};
    const errs = validateAttributes(spec);
    if (errs.length) throw invalid({ group: GROUP, kind: 'SelfSubjectAccessReview' }, '', errs);
    return answer(obj, await decide(authorizer, attributesFor(ctx.user, spec)));
  };
}

function subjectOf(spec: SubjectAccessReview['spec']): UserInfo {
  const user: UserInfo = { name: spec.user ?? '', groups: [...(spec.groups ?? [])] };
  if (spec.uid) user.uid = spec.uid;
  if (spec.extra) user.extra = spec.extra;
  return user;
}

export function subjectAccessReview(authorizer: Authorizer): ReviewHandler {
  return async (obj) => {
    const review = obj as unknown as SubjectAccessReview;
    const spec = review.spec ?? {};
    const errs = validateAttributes(spec);
    if (!spec.user && !spec.groups?.length) errs.push(invalidField('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
    if (errs.length) throw invalid({ group: GROUP, kind: 'SubjectAccessReview' }, '', errs);
    return answer(obj, await decide(authorizer, attributesFor(subjectOf(spec), spec)));
  };
}

export function localSubjectAccessReview(authorizer: Authorizer): ReviewHandler {
  return async (obj, ctx: ReviewContext) => {
    const review = obj as unknown as LocalSubjectAccessReview;
    const spec = review.spec ?? {};
    const errs = validateAttributes(spec);
    if (!spec.user && !spec.groups?.length) errs.push(invalidField('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
    if (spec.nonResourceAttributes) errs.push(invalidField('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
    if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== ctx.namespace) {
      errs.push(invalidField('spec.resourceAttributes.namespace', spec.resourceAttributes.namespace ?? '', 'must match metadata.namespace'));
    }
    if (errs.length) throw invalid({ group: GROUP, kind: 'LocalSubjectAccessReview' }, '', errs);
    return answer(obj, await decide(authorizer, attributesFor(subjectOf(spec), spec)));
  };
}

export function selfSubjectRulesReview(authorizers: readonly Authorizer[]): ReviewHandler {
  const resolvers: RuleResolver[] = authorizers.filter((a) => isRuleResolver(a)) as unknown as RuleResolver[];
  return async (obj, ctx) => {
    const review = obj as unknown as SelfSubjectRulesReview;
    const namespace = review.spec?.namespace ?? '';
    if (!namespace) throw badRequest('no namespace on request');
    const rules = unionRules(resolvers, ctx.user, namespace);
    return { ...obj, metadata: { ...(obj.metadata ?? {}), creationTimestamp: undefined }, status: rules };
  };
}
