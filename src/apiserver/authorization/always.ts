import type { UserInfo } from '../authentication/user-info.js';
import type { Attributes, AuthorizationResult, Authorizer } from './authorizer.js';
import type { RuleResolver, SubjectRules } from './rules-review.js';

/** `--authorization-mode AlwaysAllow`: every request, anonymous ones included, as upstream. */
export class AlwaysAllowAuthorizer implements Authorizer, RuleResolver {
  readonly name = 'AlwaysAllow';

  async authorize(): Promise<AuthorizationResult> {
    return { decision: 'Allow', reason: '' };
  }

  rulesFor(): SubjectRules {
    return {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
  }
}

/** `--authorization-mode AlwaysDeny`: refuses everything (for tests). */
export class AlwaysDenyAuthorizer implements Authorizer, RuleResolver {
  readonly name = 'AlwaysDeny';

  async authorize(_attrs: Attributes): Promise<AuthorizationResult> {
    return { decision: 'Deny', reason: 'Everything is forbidden.' };
  }

  rulesFor(_user: UserInfo): SubjectRules {
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }
}
