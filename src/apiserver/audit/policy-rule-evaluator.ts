import type { UserInfo } from '../authentication/user-info.js';
import type { Level, Policy, PolicyRule, Stage } from './policy.js';

/** What audit rules match on: upstream's authorizer attributes, with no user when authentication failed. */
export interface AuditAttributes {
  user?: UserInfo;
  verb: string;
  resourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

/** How one request is audited. */
export interface RequestAuditConfig {
  level: Level;
  omitStages: ReadonlySet<Stage>;
  omitManagedFields: boolean;
}

export const NOT_AUDITED: RequestAuditConfig = { level: 'None', omitStages: new Set(), omitManagedFields: false };

/** Decides a request's audit level: the first matching rule wins; no match is None (upstream's policy checker). */
export type PolicyRuleEvaluator = (attrs: AuditAttributes) => RequestAuditConfig;

export function policyRuleEvaluator(policy: Policy): PolicyRuleEvaluator {
  return (attrs) => {
    const rule = policy.rules.find((r) => ruleMatches(r, attrs));
    if (!rule) return { ...NOT_AUDITED, omitStages: new Set(policy.omitStages ?? []) };
    return {
      level: rule.level,
      omitStages: new Set([...(policy.omitStages ?? []), ...(rule.omitStages ?? [])]),
      // a rule's own setting wins over the policy's
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
    };
  };
}

export function ruleMatches(rule: PolicyRule, attrs: AuditAttributes): boolean {
  const user = attrs.user;
  if (rule.users?.length && (!user || !rule.users.includes(user.name))) return false;
  if (rule.userGroups?.length && (!user || !user.groups.some((g) => rule.userGroups!.includes(g)))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(attrs.verb)) return false;
  if (rule.namespaces?.length || rule.resources?.length) return matchesResource(rule, attrs);
  if (rule.nonResourceURLs?.length) return !attrs.resourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(attrs.path, spec));
  return true;
}

function matchesResource(rule: PolicyRule, attrs: AuditAttributes): boolean {
  if (!attrs.resourceRequest) return false;
  // a cluster-scoped resource is in the namespace ""
  if (rule.namespaces?.length && !rule.namespaces.includes(attrs.namespace)) return false;
  if (!rule.resources?.length) return true;
  const { resource, subresource, name } = attrs;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const gr of rule.resources) {
    if ((gr.group ?? '') !== attrs.apiGroup) continue;
    if (!gr.resources?.length) return true;
    if (gr.resourceNames?.length && !gr.resourceNames.includes(name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (subresource && res.startsWith('*/') && res.slice(2) === subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === resource) return true;
    }
  }
  return false;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.slice(0, -1));
}
