import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';

/**
 * Whether one PolicyRule grants a request, with upstream's RBAC semantics:
 * `*` matches any verb, group or resource; `*\/scale` any resource's scale
 * subresource; resourceNames restrict to named objects (so they never match
 * a list or a create without a name); a non-resource URL ending in `*`
 * matches every path with that prefix.
 */

/** The parts of a request that rules look at (a subset of the authorizer's attributes). */
export interface RuleRequest {
  verb: string;
  resourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
  path: string;
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === '*' || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === '*' || g === group);
}

export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    // `*/status` grants the status subresource of every resource
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))));
}

export function ruleAllows(req: RuleRequest, rule: PolicyRule): boolean {
  if (!verbMatches(rule, req.verb)) return false;
  if (!req.resourceRequest) return nonResourceURLMatches(rule, req.path);
  const combined = req.subresource ? `${req.resource}/${req.subresource}` : req.resource;
  return apiGroupMatches(rule, req.apiGroup) && resourceMatches(rule, combined, req.subresource) && resourceNameMatches(rule, req.name);
}
