import { parse as parseYaml } from 'yaml';

/** How much of a request is recorded (audit.k8s.io/v1 Level), least first. */
export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];

/** When in a request's life an event is written (audit.k8s.io/v1 Stage). */
export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type Stage = (typeof STAGES)[number];

export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

/** One rule of a Policy; the first rule that matches a request decides its level. */
export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** audit.k8s.io/v1 Policy, as read from --audit-policy-file. */
export interface Policy {
  apiVersion: 'audit.k8s.io/v1';
  kind: 'Policy';
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** A policy file that cannot be used: the server refuses to start. */
export class AuditPolicyError extends Error {
  override readonly name = 'AuditPolicyError';
}

export function levelAtLeast(level: Level, min: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Parses and validates a policy file's text (YAML or JSON), with upstream's validation messages. */
export function parsePolicy(text: string, source = 'policy'): Policy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new AuditPolicyError(`failed decoding ${source}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isRecord(doc)) throw new AuditPolicyError(`failed decoding ${source}: not a Policy object`);
  if (doc.apiVersion !== 'audit.k8s.io/v1') {
    throw new AuditPolicyError(`failed decoding ${source}: unsupported apiVersion ${JSON.stringify(doc.apiVersion ?? '')} (want audit.k8s.io/v1)`);
  }
  if (doc.kind !== 'Policy') throw new AuditPolicyError(`failed decoding ${source}: unsupported kind ${JSON.stringify(doc.kind ?? '')} (want Policy)`);
  const errors: string[] = [];
  const omitStages = stagesOf(doc.omitStages, 'omitStages', errors);
  const rawRules = doc.rules ?? [];
  if (!Array.isArray(rawRules)) throw new AuditPolicyError(`failed decoding ${source}: rules must be a list`);
  const rules = rawRules.map((r, i) => ruleOf(r, `rules[${i}]`, errors));
  if (errors.length > 0) throw new AuditPolicyError(`invalid audit policy ${source}: ${errors.join(', ')}`);
  if (rules.length === 0) throw new AuditPolicyError(`loaded illegal policy with 0 rules from file ${source}`);
  return {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    rules,
    ...(omitStages ? { omitStages } : {}),
    ...(doc.omitManagedFields === true ? { omitManagedFields: true } : {}),
  };
}

function ruleOf(raw: unknown, path: string, errors: string[]): PolicyRule {
  if (!isRecord(raw)) {
    errors.push(`${path}: Invalid value: a rule must be an object`);
    return { level: 'None' };
  }
  const level = raw.level;
  if (level === undefined || level === '') errors.push(`${path}.level: Required value`);
  else if (!LEVELS.includes(level as Level)) errors.push(`${path}.level: Unsupported value: ${JSON.stringify(level)}: supported values: ${LEVELS.map((l) => `"${l}"`).join(', ')}`);
  const rule: PolicyRule = { level: (LEVELS.includes(level as Level) ? level : 'None') as Level };
  for (const key of ['users', 'userGroups', 'verbs', 'namespaces', 'nonResourceURLs'] as const) {
    const list = stringsOf(raw[key], `${path}.${key}`, errors);
    if (list) rule[key] = list;
  }
  if (raw.resources !== undefined) {
    if (!Array.isArray(raw.resources)) errors.push(`${path}.resources: Invalid value: must be a list`);
    else rule.resources = raw.resources.map((gr, i) => groupResourcesOf(gr, `${path}.resources[${i}]`, errors));
  }
  const stages = stagesOf(raw.omitStages, `${path}.omitStages`, errors);
  if (stages) rule.omitStages = stages;
  if (typeof raw.omitManagedFields === 'boolean') rule.omitManagedFields = raw.omitManagedFields;
  if (rule.nonResourceURLs?.length && (rule.resources?.length || rule.namespaces?.length)) {
    errors.push(`${path}.nonResourceURLs: Invalid value: ${JSON.stringify(rule.nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`);
  }
  for (const [i, url] of (rule.nonResourceURLs ?? []).entries()) {
    if (!url.startsWith('/')) errors.push(`${path}.nonResourceURLs[${i}]: Invalid value: ${JSON.stringify(url)}: non-resource URL rules must begin with a '/' character`);
    if (url.slice(0, -1).includes('*')) errors.push(`${path}.nonResourceURLs[${i}]: Invalid value: ${JSON.stringify(url)}: non-resource URL wildcards '*' must be the final character of the rule`);
  }
  return rule;
}

function groupResourcesOf(raw: unknown, path: string, errors: string[]): GroupResources {
  if (!isRecord(raw)) {
    errors.push(`${path}: Invalid value: must be an object`);
    return {};
  }
  const gr: GroupResources = {};
  if (raw.group !== undefined) {
    if (typeof raw.group !== 'string') errors.push(`${path}.group: Invalid value: must be a string`);
    else {
      if (raw.group !== '' && !DNS1123_SUBDOMAIN.test(raw.group)) errors.push(`${path}.group: Invalid value: ${JSON.stringify(raw.group)}: must be a valid API group name`);
      gr.group = raw.group;
    }
  }
  const resources = stringsOf(raw.resources, `${path}.resources`, errors);
  if (resources) gr.resources = resources;
  const names = stringsOf(raw.resourceNames, `${path}.resourceNames`, errors);
  if (names) gr.resourceNames = names;
  if (gr.resourceNames?.length && !gr.resources?.length) errors.push(`${path}.resourceNames: Invalid value: ${JSON.stringify(gr.resourceNames)}: using resourceNames requires at least one resource`);
  return gr;
}

function stringsOf(raw: unknown, path: string, errors: string[]): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw) || raw.some((s) => typeof s !== 'string')) {
    errors.push(`${path}: Invalid value: must be a list of strings`);
    return undefined;
  }
  return raw as string[];
}

function stagesOf(raw: unknown, path: string, errors: string[]): Stage[] | undefined {
  const list = stringsOf(raw, path, errors);
  if (!list) return undefined;
  list.forEach((s, i) => {
    if (!STAGES.includes(s as Stage)) errors.push(`${path}[${i}]: Unsupported value: ${JSON.stringify(s)}: supported values: ${STAGES.map((x) => `"${x}"`).join(', ')}`);
  });
  return list.filter((s): s is Stage => STAGES.includes(s as Stage));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
