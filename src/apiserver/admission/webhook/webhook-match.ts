import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { selectorMatches } from '../../../api/validation/label-selector.js';
import type { AdmissionRuleWithOperations } from '../../../api/validation/admission-registration.js';
import type { AdmissionAttributes } from '../admission.js';

/** The parts of a webhook (mutating or validating) that decide whether a request goes to it. */
export interface WebhookMatchSpec {
  rules?: AdmissionRuleWithOperations[];
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
}

/** A request's group/version/resource/subresource as a rule sees it. */
export interface RuleTarget {
  group: string;
  version: string;
  resource: string;
  subresource: string;
}

/** Upstream's rules.Matcher: operation, group, version, resource[/subresource] and scope, each with `*`. */
export function ruleMatches(rule: AdmissionRuleWithOperations, attrs: Pick<AdmissionAttributes, 'operation' | 'namespace'>, target: RuleTarget): boolean {
  const has = (list: string[] | undefined, v: string) => (list ?? []).some((x) => x === '*' || x === v);
  if (!has(rule.operations, attrs.operation)) return false;
  if (!has(rule.apiGroups, target.group) || !has(rule.apiVersions, target.version)) return false;
  const resourceOk = (rule.resources ?? []).some((r) => {
    const slash = r.indexOf('/');
    const [res, sub] = slash < 0 ? [r, ''] : [r.slice(0, slash), r.slice(slash + 1)];
    return (res === '*' || res === target.resource) && (sub === '*' || sub === target.subresource);
  });
  if (!resourceOk) return false;
  const isNamespace = target.group === '' && target.resource === 'namespaces';
  switch (rule.scope ?? '*') {
    case 'Namespaced':
      return !isNamespace && attrs.namespace !== '';
    case 'Cluster':
      return isNamespace || attrs.namespace === '';
    default:
      return true;
  }
}

/** The first served target (the request's own first, then its equivalents) some rule matches; undefined when none. */
export function matchingTarget(spec: WebhookMatchSpec, attrs: AdmissionAttributes, candidates: readonly RuleTarget[]): RuleTarget | undefined {
  return candidates.find((t) => (spec.rules ?? []).some((rule) => ruleMatches(rule, attrs, t)));
}

/**
 * Upstream's namespace matcher: cluster-scoped objects other than Namespaces
 * always match; a Namespace is matched on its own labels; anything else on
 * its namespace's labels.
 */
export function namespaceMatches(selector: LabelSelector | undefined, attrs: AdmissionAttributes, namespaceLabels: Record<string, string> | undefined): boolean {
  if (!selector || isEmpty(selector)) return true;
  const isNamespace = attrs.resource.group === '' && attrs.resource.resource === 'namespaces';
  if (isNamespace) {
    const obj = attrs.object ?? attrs.oldObject;
    return selectorMatches(selector, obj?.metadata?.labels);
  }
  if (!attrs.namespace) return true;
  return selectorMatches(selector, namespaceLabels);
}

/** Upstream's object matcher: the new or the old object's labels; an absent object does not match. */
export function objectMatches(selector: LabelSelector | undefined, attrs: AdmissionAttributes): boolean {
  if (!selector || isEmpty(selector)) return true;
  return [attrs.object, attrs.oldObject].some((o) => o !== undefined && selectorMatches(selector, o.metadata?.labels));
}

function isEmpty(s: LabelSelector): boolean {
  return Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;
}
