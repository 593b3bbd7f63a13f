import type { FlowSchema, NonResourcePolicyRule, PolicyRulesWithSubjects, ResourcePolicyRule, Subject } from 'kubernetes-types/flowcontrol/v1.js';
import { splitServiceAccountUsername, type UserInfo } from '../authentication/user-info.js';
import type { RequestInfo } from '../request-info.js';

/** What APF classifies: the parsed request and who sent it (upstream's RequestDigest). */
export interface RequestDigest {
  info: RequestInfo;
  user: UserInfo;
}

/**
 * FlowSchemas in the order they are tried: matchingPrecedence ascending, then
 * name compared as bytes, as upstream's Go `<` (not localeCompare, which also
 * costs its first caller ~20 ms of ICU collator set-up).
 */
export function sortFlowSchemas(schemas: readonly FlowSchema[]): FlowSchema[] {
  const name = (fs: FlowSchema) => fs.metadata?.name ?? '';
  return [...schemas].sort((a, b) => (a.spec?.matchingPrecedence ?? 1000) - (b.spec?.matchingPrecedence ?? 1000) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}

/** The first schema (of sorted ones) one of whose rules matches the request, or undefined. */
export function matchFlowSchema(sorted: readonly FlowSchema[], digest: RequestDigest): FlowSchema | undefined {
  return sorted.find((fs) => (fs.spec?.rules ?? []).some((rule) => ruleMatches(rule, digest)));
}

/** The flow distinguisher: the user name, the namespace, or nothing (one flow for the whole schema). */
export function flowDistinguisher(fs: FlowSchema, digest: RequestDigest): string {
  switch (fs.spec?.distinguisherMethod?.type) {
    case 'ByUser':
      return digest.user.name;
    case 'ByNamespace':
      return digest.info.namespace;
    default:
      return '';
  }
}

function ruleMatches(rule: PolicyRulesWithSubjects, { info, user }: RequestDigest): boolean {
  if (!(rule.subjects ?? []).some((s) => subjectMatches(s, user))) return false;
  if (info.isResourceRequest) return (rule.resourceRules ?? []).some((r) => resourceRuleMatches(r, info));
  return (rule.nonResourceRules ?? []).some((r) => nonResourceRuleMatches(r, info));
}

function subjectMatches(subject: Subject, user: UserInfo): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.user?.name === '*' || subject.user?.name === user.name;
    case 'Group':
      return subject.group?.name === '*' || user.groups.includes(subject.group?.name ?? '');
    case 'ServiceAccount': {
      const sa = splitServiceAccountUsername(user.name);
      return sa !== undefined && sa.namespace === subject.serviceAccount?.namespace && (subject.serviceAccount.name === '*' || subject.serviceAccount.name === sa.name);
    }
    default:
      return false;
  }
}

const matchesAny = (list: readonly string[] | undefined, value: string): boolean => (list ?? []).some((x) => x === '*' || x === value);

function resourceRuleMatches(rule: ResourcePolicyRule, info: RequestInfo): boolean {
  if (!matchesAny(rule.verbs, info.verb) || !matchesAny(rule.apiGroups, info.group)) return false;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  if (!matchesAny(rule.resources, resource)) return false;
  // a namespaced rule's '*' means "every namespace", never "no namespace"; cluster-scoped requests need clusterScope
  if (!info.namespace) return rule.clusterScope === true;
  return matchesAny(rule.namespaces, info.namespace);
}

function nonResourceRuleMatches(rule: NonResourcePolicyRule, info: RequestInfo): boolean {
  if (!matchesAny(rule.verbs, info.verb)) return false;
  return (rule.nonResourceURLs ?? []).some((url) => url === '*' || url === info.path || (url.endsWith('/*') && info.path.startsWith(url.slice(0, -1))));
}
