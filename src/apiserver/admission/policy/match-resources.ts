import type { MatchResources, NamedRuleWithOperations } from 'kubernetes-types/admissionregistration/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { labelSelectorFromObject } from '../../../machinery/labels/index.js';
import type { AdmissionAttributes } from '../admission.js';

/** The parts of a request rules match on, plus whether its resource is namespaced. */
export interface MatchTarget {
  attrs: AdmissionAttributes;
  namespaced: boolean;
  /** The labels of the request's namespace (or of the Namespace itself); undefined for cluster-scoped objects. */
  namespaceLabels?: Record<string, string>;
}

/** `rule` fields embedded inline in NamedRuleWithOperations (kubernetes-types leaves them out). */
interface InlineRule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

const has = (list: string[] | undefined, v: string) => (list ?? []).some((x) => x === '*' || x === v);

/** One resource rule, as upstream's rules.Matcher: operation, group, version, resource[/subresource], scope, names. */
export function ruleMatches(rule: NamedRuleWithOperations, t: MatchTarget): boolean {
  const r = rule as NamedRuleWithOperations & InlineRule;
  const a = t.attrs;
  if (!has(r.operations, a.operation)) return false;
  if (!has(r.apiGroups, a.resource.group) || !has(r.apiVersions, a.resource.version)) return false;
  const scope = r.scope ?? '*';
  if ((scope === 'Cluster' && t.namespaced) || (scope === 'Namespaced' && !t.namespaced)) return false;
  const full = a.subresource ? `${a.resource.resource}/${a.subresource}` : a.resource.resource;
  const resourceOk = (r.resources ?? []).some((res) => {
    if (res === '*/*' || res === full) return true;
    const [base, sub] = res.split('/');
    if (sub === undefined) return !a.subresource && (base === '*' || base === a.resource.resource);
    return (base === '*' && sub === a.subresource) || (base === a.resource.resource && sub === '*' && a.subresource !== '');
  });
  if (!resourceOk) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

function selectorMatches(sel: LabelSelector | undefined, labels: Record<string, string>): boolean {
  return !sel || labelSelectorFromObject(sel).matches(labels);
}

/**
 * Whether a request matches a policy's matchConstraints or a binding's
 * matchResources: any resourceRule (an empty list matches everything, for
 * bindings) and no excludeResourceRule, the namespace selector (always true
 * for cluster-scoped objects other than Namespaces) and the object selector
 * (on the new or the old object).
 */
export function matchesResources(m: MatchResources | undefined, t: MatchTarget, rulesRequired: boolean): boolean {
  if (!m) return !rulesRequired;
  const rules = m.resourceRules ?? [];
  if (rulesRequired || rules.length > 0) {
    if (!rules.some((r) => ruleMatches(r, t))) return false;
  }
  if ((m.excludeResourceRules ?? []).some((r) => ruleMatches(r, t))) return false;
  if (t.namespaceLabels !== undefined && !selectorMatches(m.namespaceSelector, t.namespaceLabels)) return false;
  if (m.objectSelector && Object.keys(m.objectSelector).length > 0) {
    const objs = [t.attrs.object, t.attrs.oldObject].filter((o) => o !== undefined);
    if (!objs.some((o) => selectorMatches(m.objectSelector, (o.metadata?.labels ?? {}) as Record<string, string>))) return false;
  }
  return true;
}
