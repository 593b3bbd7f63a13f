import type { UserInfo } from '../authentication/user-info.js';

/** What a user may do in a namespace, as SelfSubjectRulesReview reports it. */
export interface SubjectRules {
  resourceRules: { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs?: string[] }[];
  /** The list may leave things out (an authorizer cannot enumerate its rules). */
  incomplete: boolean;
  evaluationError?: string;
}

/** Authorizers that can enumerate what they allow (upstream's RuleResolver). */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): SubjectRules;
}

export function isRuleResolver(a: unknown): a is RuleResolver {
  return typeof (a as Partial<RuleResolver>).rulesFor === 'function';
}

/** The union of every resolver's rules, in chain order. */
export function unionRules(resolvers: readonly RuleResolver[], user: UserInfo, namespace: string): SubjectRules {
  const out: SubjectRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
  const errors: string[] = [];
  for (const r of resolvers) {
    const rules = r.rulesFor(user, namespace);
    out.resourceRules.push(...rules.resourceRules);
    out.nonResourceRules.push(...rules.nonResourceRules);
    out.incomplete ||= rules.incomplete;
    if (rules.evaluationError) errors.push(rules.evaluationError);
  }
  if (errors.length) out.evaluationError = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
  return out;
}
