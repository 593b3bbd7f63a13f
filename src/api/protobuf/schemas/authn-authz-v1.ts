import { messages } from '../message-schema.js';

/**
 * authorization.k8s.io/v1 (the access reviews `kubectl auth can-i` sends) and
 * authentication.k8s.io/v1 (TokenReview, SelfSubjectReview). `extra` maps
 * hold ExtraValue, a list of strings (see special-types.ts).
 */
export const AUTHN_AUTHZ_V1 = messages({
  SubjectAccessReview: { 1: 'metadata:ObjectMeta', 2: 'spec:SubjectAccessReviewSpec', 3: 'status:SubjectAccessReviewStatus' },
  LocalSubjectAccessReview: { 1: 'metadata:ObjectMeta', 2: 'spec:SubjectAccessReviewSpec', 3: 'status:SubjectAccessReviewStatus' },
  SelfSubjectAccessReview: { 1: 'metadata:ObjectMeta', 2: 'spec:SelfSubjectAccessReviewSpec', 3: 'status:SubjectAccessReviewStatus' },
  SelfSubjectRulesReview: { 1: 'metadata:ObjectMeta', 2: 'spec:SelfSubjectRulesReviewSpec', 3: 'status:SubjectRulesReviewStatus' },
  SubjectAccessReviewSpec: {
    1: 'resourceAttributes:ResourceAttributes*',
    2: 'nonResourceAttributes:NonResourceAttributes*',
    3: 'user',
    4: 'groups:s[]',
    5: 'extra:ExtraValue{}',
    6: 'uid',
  },
  SelfSubjectAccessReviewSpec: { 1: 'resourceAttributes:ResourceAttributes*', 2: 'nonResourceAttributes:NonResourceAttributes*' },
  ResourceAttributes: { 1: 'namespace', 2: 'verb', 3: 'group', 4: 'version', 5: 'resource', 6: 'subresource', 7: 'name' },
  NonResourceAttributes: { 1: 'path', 2: 'verb' },
  SelfSubjectRulesReviewSpec: { 1: 'namespace' },
  SubjectAccessReviewStatus: { 1: 'allowed:b!', 4: 'denied:b', 2: 'reason', 3: 'evaluationError' },
  SubjectRulesReviewStatus: { 1: 'resourceRules:ResourceRule[]!', 2: 'nonResourceRules:NonResourceRule[]!', 3: 'incomplete:b!', 4: 'evaluationError' },
  ResourceRule: { 1: 'verbs:s[]!', 2: 'apiGroups:s[]', 3: 'resources:s[]', 4: 'resourceNames:s[]' },
  NonResourceRule: { 1: 'verbs:s[]!', 2: 'nonResourceURLs:s[]' },
  TokenReview: { 1: 'metadata:ObjectMeta', 2: 'spec:TokenReviewSpec', 3: 'status:TokenReviewStatus' },
  TokenReviewSpec: { 1: 'token', 2: 'audiences:s[]' },
  TokenReviewStatus: { 1: 'authenticated:b', 2: 'user:AuthUserInfo', 4: 'audiences:s[]', 3: 'error' },
  AuthUserInfo: { 1: 'username', 2: 'uid', 3: 'groups:s[]', 4: 'extra:ExtraValue{}' },
  SelfSubjectReview: { 1: 'metadata:ObjectMeta', 2: 'status:SelfSubjectReviewStatus' },
  SelfSubjectReviewStatus: { 1: 'userInfo:AuthUserInfo' },
});
