import { ruleAllows, type RuleRequest } from './rule-matches.js';
import type { RbacObjects } from './rbac-objects.js';
import type { SubjectRules } from '../rules-review.js';
import { aggregateMessage, rulesFor, visitRulesFor, type RbacUser, type RuleResolutionError } from './rule-resolver.js';

/** The request attributes RBAC decides on (structurally a subset of the authorizer chain's). */
export interface RbacAttributes extends RuleRequest {
  user: RbacUser;
  namespace: string;
}

export interface RbacDecision {
  decision: 'Allow' | 'NoOpinion';
  reason: string;
}

/**
 * Role-based access control as upstream's RBACAuthorizer: allow when any rule
 * reachable through the user's bindings grants the request; otherwise no
 * opinion (RBAC never denies), with the bindings it could not follow as the
 * reason.
 */
export class RbacAuthorizer {
  readonly name = 'RBAC';

  constructor(private readonly objects: RbacObjects) {}

  decide(attrs: RbacAttributes): RbacDecision {
    let reason = '';
    const errors: RuleResolutionError[] = [];
    visitRulesFor(this.objects, attrs.user, attrs.namespace, (source, rule, err) => {
      if (rule && ruleAllows(attrs, rule)) {
        reason = `RBAC: allowed by ${source()}`;
        return false;
      }
      if (err) errors.push(err);
      return true;
    });
    if (reason) return { decision: 'Allow', reason };
    return { decision: 'NoOpinion', reason: errors.length ? `RBAC: ${aggregateMessage(errors)}` : '' };
  }

  authorize(attrs: RbacAttributes): Promise<RbacDecision> {
    return Promise.resolve(this.decide(attrs));
  }

  /** The rules that apply to the user in a namespace, split as SelfSubjectRulesReview reports them. */
  rulesFor(user: RbacUser, namespace: string): SubjectRules {
    const { rules, errors } = rulesFor(this.objects, user, namespace);
    const out: SubjectRules = { resourceRules: [], nonResourceRules: [], incomplete: errors.length > 0 };
    for (const r of rules) {
      if (r.resources?.length) {
        const rule: SubjectRules['resourceRules'][number] = { verbs: [...r.verbs], apiGroups: [...(r.apiGroups ?? [])], resources: [...r.resources] };
        if (r.resourceNames?.length) rule.resourceNames = [...r.resourceNames];
        out.resourceRules.push(rule);
      }
      if (r.nonResourceURLs?.length) out.nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs] });
    }
    if (errors.length) out.evaluationError = aggregateMessage(errors);
    return out;
  }
}
