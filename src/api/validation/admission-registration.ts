import type { MutatingWebhook, MutatingWebhookConfiguration, RuleWithOperations, ValidatingWebhook, ValidatingWebhookConfiguration, WebhookClientConfig } from 'kubernetes-types/admissionregistration/v1.js';
import { child, duplicate, index, invalid, notSupported, required, type ErrorList } from './errors.js';
import { validateLabelSelector } from './label-selector.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum, nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';

/** kubernetes-types leaves out Rule's fields, which RuleWithOperations embeds inline upstream. */
export type AdmissionRuleWithOperations = RuleWithOperations & { resources?: string[]; scope?: string };

/** AdmissionReview versions this API server speaks (upstream accepts v1 and v1beta1 in configurations). */
export const ACCEPTED_ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const ALL_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

type Webhook = MutatingWebhook | ValidatingWebhook;
type Configuration = MutatingWebhookConfiguration | ValidatingWebhookConfiguration;

/** Upstream's ValidateMutatingWebhookConfiguration / ValidateValidatingWebhookConfiguration. */
export function validateWebhookConfiguration(config: Configuration, old?: Configuration): ErrorList {
  const errs = validateObjectMeta(config.metadata, false, nameIsDNSSubdomain);
  const oldHooks: Webhook[] = old?.webhooks ?? [];
  // an update keeps what the stored object already had (ratcheting, as upstream)
  const opts = {
    requireNoSideEffects: !old || oldHooks.every((h) => NO_SIDE_EFFECTS.includes(h.sideEffects ?? '')),
    requireRecognizedVersion: !old || oldHooks.every((h) => !h.admissionReviewVersions?.length || h.admissionReviewVersions.some((v) => ACCEPTED_ADMISSION_REVIEW_VERSIONS.includes(v))),
    requireUniqueNames: !old || new Set(oldHooks.map((h) => h.name)).size === oldHooks.length,
  };
  const names = new Set<string>();
  (config.webhooks ?? []).forEach((hook: Webhook, i) => {
    const path = index('webhooks', i);
    errs.push(...validateWebhook(hook, path, opts.requireNoSideEffects));
    errs.push(...validateAdmissionReviewVersions(hook.admissionReviewVersions, opts.requireRecognizedVersion, child(path, 'admissionReviewVersions')));
    if (opts.requireUniqueNames && hook.name) {
      if (names.has(hook.name)) errs.push(duplicate(child(path, 'name'), hook.name));
      names.add(hook.name);
    }
  });
  return errs;
}

function validateWebhook(hook: Webhook, path: string, requireNoSideEffects: boolean): ErrorList {
  const errs = isFullyQualifiedName(hook.name ?? '', child(path, 'name'));
  (hook.rules ?? []).forEach((rule, i) => errs.push(...validateRuleWithOperations(rule, index(child(path, 'rules'), i))));
  if (hook.failurePolicy !== undefined && !FAILURE_POLICIES.includes(hook.failurePolicy)) errs.push(notSupported(child(path, 'failurePolicy'), hook.failurePolicy, FAILURE_POLICIES));
  if (hook.matchPolicy !== undefined && !MATCH_POLICIES.includes(hook.matchPolicy)) errs.push(notSupported(child(path, 'matchPolicy'), hook.matchPolicy, MATCH_POLICIES));
  const allowed = requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  if (hook.sideEffects === undefined || hook.sideEffects === null) errs.push(required(child(path, 'sideEffects'), `must specify one of ${allowed.join(', ')}`));
  else if (!allowed.includes(hook.sideEffects)) errs.push(notSupported(child(path, 'sideEffects'), hook.sideEffects, allowed));
  if (hook.timeoutSeconds !== undefined && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1)) {
    errs.push(invalid(child(path, 'timeoutSeconds'), hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  }
  errs.push(...validateLabelSelector(hook.namespaceSelector, child(path, 'namespaceSelector')));
  errs.push(...validateLabelSelector(hook.objectSelector, child(path, 'objectSelector')));
  const reinvocation = (hook as MutatingWebhook).reinvocationPolicy;
  if (reinvocation !== undefined && !REINVOCATION_POLICIES.includes(reinvocation)) errs.push(notSupported(child(path, 'reinvocationPolicy'), reinvocation, REINVOCATION_POLICIES));
  errs.push(...validateClientConfig(hook.clientConfig ?? {}, child(path, 'clientConfig')));
  const conditionNames = new Set<string>();
  (hook.matchConditions ?? []).forEach((c, i) => {
    const p = index(child(path, 'matchConditions'), i);
    if (!c.name) errs.push(required(child(p, 'name'), ''));
    else if (conditionNames.has(c.name)) errs.push(duplicate(child(p, 'name'), c.name));
    conditionNames.add(c.name);
    if (!c.expression) errs.push(required(child(p, 'expression'), ''));
  });
  return errs;
}

/** Upstream's utilvalidation.IsFullyQualifiedName. */
function isFullyQualifiedName(name: string, path: string): ErrorList {
  if (!name) return [required(path, '')];
  const problems = isDNS1123Subdomain(name);
  if (problems.length) return [invalid(path, name, problems.join(', '))];
  if (name.split('.').length < 3) return [invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateAdmissionReviewVersions(versions: string[] | undefined, requireRecognized: boolean, path: string): ErrorList {
  if (!versions?.length) return [required(path, `must specify one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(', ')}`)];
  const errs: ErrorList = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) return void errs.push(invalid(index(path, i), v, 'duplicate version'));
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(invalid(index(path, i), v, msg));
  });
  if (requireRecognized && !versions.some((v) => ACCEPTED_ADMISSION_REVIEW_VERSIONS.includes(v))) {
    errs.push(invalid(path, versions, `must include at least one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

function validateRuleWithOperations(rule: AdmissionRuleWithOperations, path: string): ErrorList {
  const errs: ErrorList = [];
  const ops = rule.operations ?? [];
  if (ops.length === 0) errs.push(required(child(path, 'operations'), ''));
  if (ops.length > 1 && ops.includes('*')) errs.push(invalid(child(path, 'operations'), ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(index(child(path, 'operations'), i), op, OPERATIONS));
  });
  const groups = rule.apiGroups ?? [];
  if (groups.length === 0) errs.push(required(child(path, 'apiGroups'), ''));
  if (groups.length > 1 && groups.includes('*')) errs.push(invalid(child(path, 'apiGroups'), groups, "if '*' is present, must not specify other API groups"));
  const versions = rule.apiVersions ?? [];
  if (versions.length === 0) errs.push(required(child(path, 'apiVersions'), ''));
  if (versions.length > 1 && versions.includes('*')) errs.push(invalid(child(path, 'apiVersions'), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(index(child(path, 'apiVersions'), i), ''));
  });
  errs.push(...validateResources(rule.resources ?? [], child(path, 'resources')));
  if (rule.scope !== undefined && !SCOPES.includes(rule.scope)) errs.push(notSupported(child(path, 'scope'), rule.scope, SCOPES));
  return errs;
}

/** Upstream's validateResources: `*`, `x/*`, `*\/x` and `*\/*` may not overlap. */
function validateResources(resources: string[], path: string): ErrorList {
  const errs: ErrorList = [];
  if (resources.length === 0) errs.push(required(path, ''));
  const wildcardSub = new Set<string>();
  const wildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((r, i) => {
    if (r === '') return void errs.push(required(index(path, i), ''));
    if (r === '*/*') doubleWildcard = true;
    if (r === '*') singleWildcard = true;
    const slash = r.indexOf('/');
    if (slash < 0) {
      withoutSub = r !== '*';
      return;
    }
    const res = r.slice(0, slash);
    const sub = r.slice(slash + 1);
    if (wildcardSub.has(res)) errs.push(invalid(index(path, i), r, `if '${res}/*' is present, must not specify ${r}`));
    if (wildcardRes.has(sub)) errs.push(invalid(index(path, i), r, `if '*/${sub}' is present, must not specify ${r}`));
    if (sub === '*') wildcardSub.add(res);
    if (res === '*') wildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** Upstream's webhook.ValidateWebhookURL (https only) and ValidateWebhookService; shared with CRD conversion and APIService. */
export function validateClientConfig(cc: WebhookClientConfig, path: string): ErrorList {
  if ((cc.url === undefined) === (cc.service === undefined)) return [required(path, 'exactly one of url or service is required')];
  if (cc.url !== undefined) return validateWebhookUrl(cc.url, child(path, 'url'));
  const svc = cc.service!;
  return validateWebhookService(svc, child(path, 'service'));
}

export function validateWebhookUrl(raw: string, path: string): ErrorList {
  let u: URL;
  try {
    u = new URL(raw);
  } catch (err) {
    return [invalid(path, raw, `parse ${JSON.stringify(raw)}: ${err instanceof Error ? err.message : String(err)}`)];
  }
  const errs: ErrorList = [];
  if (u.protocol !== 'https:') errs.push(invalid(path, u.protocol.replace(/:$/, ''), "'https' is the only allowed URL scheme"));
  if (!u.host) errs.push(invalid(path, u.host, 'host must be specified'));
  if (u.username || u.password) errs.push(invalid(path, u.password ? `${u.username}:xxxxx` : u.username, 'user information is not permitted in the URL'));
  if (u.hash) errs.push(invalid(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search) errs.push(invalid(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

export function validateWebhookService(svc: { name?: string; namespace?: string; path?: string; port?: number }, path: string): ErrorList {
  const errs: ErrorList = [];
  if (!svc.name) errs.push(required(child(path, 'name'), 'service name is required'));
  if (!svc.namespace) errs.push(required(child(path, 'namespace'), 'service namespace is required'));
  if (svc.port !== undefined) {
    const problems = isValidPortNum(svc.port);
    if (problems.length) errs.push(invalid(child(path, 'port'), svc.port, `port is not valid: ${problems.join(', ')}`));
  }
  const p = svc.path;
  if (p === undefined || p === '/') return errs;
  if (!p.startsWith('/')) return [...errs, invalid(child(path, 'path'), p, "must start with a '/'")];
  p.slice(1).split('/').forEach((step, i) => {
    if (step === '') errs.push(invalid(child(path, 'path'), p, `segment[${i}] may not be empty`));
    else {
      const problems = isDNS1123Subdomain(step);
      if (problems.length) errs.push(invalid(child(path, 'path'), p, `segment[${i}]: ${problems.join(', ')}`));
    }
  });
  return errs;
}
