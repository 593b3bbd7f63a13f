import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';

/**
 * Whether one set of rules holds every permission of another (upstream's
 * validation.Covers): the second set is broken down into single
 * verb/group/resource/name (or verb/URL) rules, each of which some rule of
 * the first set must cover.
 */

const has = (set: readonly string[] | undefined, v: string) => (set ?? []).includes(v);
const hasAll = (set: readonly string[] | undefined, vs: readonly string[] | undefined) => (vs ?? []).every((v) => has(set, v));

/** One rule per verb × group × resource (× name), or per verb × URL. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (rule.resourceNames?.length) for (const name of rule.resourceNames) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function resourceCoversAll(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, wanted)) return true;
  return (wanted ?? []).every((path) => {
    if (has(owner, path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && has(owner, `*/${path.slice(slash + 1)}`);
  });
}

function nonResourceURLCovers(owner: string, wanted: string): boolean {
  return owner === wanted || (owner.endsWith('*') && wanted.startsWith(owner.replace(/\*+$/, '')));
}

export function ruleCovers(owner: PolicyRule, wanted: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, wanted.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, wanted.apiGroups);
  const resources = resourceCoversAll(owner.resources, wanted.resources);
  const urls = (wanted.nonResourceURLs ?? []).every((u) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, u)));
  const names = wanted.resourceNames?.length ? !owner.resourceNames?.length || hasAll(owner.resourceNames, wanted.resourceNames) : !owner.resourceNames?.length;
  return verbs && groups && resources && names && urls;
}

/** The single rules of `wanted` that no rule of `owner` covers (empty: owner covers wanted). */
export function uncoveredRules(owner: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of wanted) {
    for (const single of breakdownRule(rule)) if (!owner.some((o) => ruleCovers(o, single))) missing.push(single);
  }
  return missing;
}

/** Go's %q of a string slice: `["a" "b"]`. */
function quoteList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** Upstream's CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${quoteList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${quoteList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${quoteList(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${quoteList(rule.resourceNames)}`);
  if (rule.verbs.length) parts.push(`Verbs:${quoteList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/**
 * Upstream's CompactRules: single-group, single-resource rules without names
 * or URLs that differ only in verbs become one rule, for shorter messages.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = r.apiGroups?.length === 1 && r.resources?.length === 1 && !r.resourceNames?.length && !r.nonResourceURLs?.length;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = `${r.apiGroups![0]}\u0000${r.resources![0]}`;
    const existing = simple.get(key);
    if (existing) {
      for (const v of r.verbs) if (!existing.verbs.includes(v)) existing.verbs.push(v);
    } else {
      const copy = { apiGroups: [...r.apiGroups!], resources: [...r.resources!], verbs: [...r.verbs] };
      simple.set(key, copy);
      out.push(copy);
    }
  }
  return out;
}
