import { isDNS1123Label, isDNS1123Subdomain } from '../../../api/validation/name.js';
import { LEVELS, parseLevel, parseVersion, type Level, type Policy, type Version } from './levels.js';

/** Who and what PodSecurity never evaluates (upstream's PodSecurityConfiguration exemptions). */
export interface PodSecurityExemptions {
  usernames: readonly string[];
  runtimeClasses: readonly string[];
  namespaces: readonly string[];
}

export interface PodSecurityConfig {
  /** The policy of a namespace without labels (each mode default privileged:latest). */
  defaults: Policy;
  exemptions: PodSecurityExemptions;
}

/** A PodSecurityConfiguration that does not validate; the message lists upstream-style field errors. */
export class PodSecurityConfigError extends Error {
  override readonly name = 'PodSecurityConfigError';
}

const API_VERSIONS = ['pod-security.admission.config.k8s.io/v1', 'pod-security.admission.config.k8s.io/v1beta1', 'pod-security.admission.config.k8s.io/v1alpha1'];
const MODES = ['enforce', 'audit', 'warn'] as const;

/**
 * Parses and validates a `PodSecurityConfiguration` (the `configuration` of
 * the PodSecurity plugin in an AdmissionConfiguration) as upstream's
 * ValidatePodSecurityConfiguration: `defaults` levels and versions,
 * exemptions of valid, distinct namespace names, runtime class names and
 * non-empty usernames.
 */
export function parsePodSecurityConfiguration(raw: unknown): PodSecurityConfig {
  const obj = (raw ?? {}) as { apiVersion?: unknown; kind?: unknown; defaults?: Record<string, unknown>; exemptions?: Record<string, unknown> };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new PodSecurityConfigError('configuration must be a PodSecurityConfiguration object');
  if (obj.kind !== 'PodSecurityConfiguration' || !API_VERSIONS.includes(String(obj.apiVersion))) {
    throw new PodSecurityConfigError(`want kind PodSecurityConfiguration in ${API_VERSIONS.join(', ')}, got ${String(obj.apiVersion)}, Kind=${String(obj.kind)}`);
  }
  const errors: string[] = [];
  const defaults = {} as Record<(typeof MODES)[number], { level: Level; version: Version }>;
  for (const mode of MODES) {
    const levelValue = String(obj.defaults?.[mode] ?? 'privileged');
    const versionValue = String(obj.defaults?.[`${mode}-version`] ?? 'latest');
    const level = parseLevel(levelValue);
    const version = parseVersion(versionValue);
    if (!level) errors.push(`defaults.${mode}: Invalid value: ${JSON.stringify(levelValue)}: must be one of ${LEVELS.join(', ')}`);
    if (!version) errors.push(`defaults.${mode}-version: Invalid value: ${JSON.stringify(versionValue)}: must be "latest" or "v1.x"`);
    defaults[mode] = { level: level ?? 'privileged', version: version ?? { latest: true } };
  }
  const list = (key: string, check: (v: string) => string[]): string[] => {
    const value = obj.exemptions?.[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      errors.push(`exemptions.${key}: Invalid value: must be a list`);
      return [];
    }
    const seen = new Set<string>();
    value.forEach((v, i) => {
      const s = String(v);
      const path = `exemptions.${key}[${i}]`;
      for (const problem of check(s)) errors.push(`${path}: Invalid value: ${JSON.stringify(s)}: ${problem}`);
      if (seen.has(s)) errors.push(`${path}: Duplicate value: ${JSON.stringify(s)}`);
      seen.add(s);
    });
    return value.map(String);
  };
  const exemptions: PodSecurityExemptions = {
    namespaces: list('namespaces', isDNS1123Label),
    runtimeClasses: list('runtimeClasses', isDNS1123Subdomain),
    usernames: list('usernames', (s) => (s === '' ? ['username must not be empty'] : [])),
  };
  if (errors.length) throw new PodSecurityConfigError(errors.join(', '));
  return { defaults, exemptions };
}
