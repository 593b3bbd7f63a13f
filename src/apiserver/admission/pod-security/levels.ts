import type { FieldError } from '../../../api/validation/field-error.js';
import { invalid } from '../../../api/validation/errors.js';

/** The Pod Security Standards levels, least to most restrictive. */
export type Level = 'privileged' | 'baseline' | 'restricted';
export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** A policy version: `v1.<minor>`, or `latest` (newer than any number). */
export type Version = { latest: true } | { latest: false; minor: number };
export const LATEST: Version = { latest: true };
export const v1 = (minor: number): Version => ({ latest: false, minor });

export function versionString(v: Version): string {
  return v.latest ? 'latest' : `v1.${v.minor}`;
}

/** a < b: negative; latest is newer than every numbered version. */
export function compareVersions(a: Version, b: Version): number {
  if (a.latest || b.latest) return a.latest === b.latest ? 0 : a.latest ? 1 : -1;
  return a.minor - b.minor;
}

export function compareLevels(a: Level, b: Level): number {
  return LEVELS.indexOf(a) - LEVELS.indexOf(b);
}

export interface LevelVersion {
  level: Level;
  version: Version;
}

export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && compareVersions(a.version, b.version) === 0;
}

/** What a namespace asks for, per mode. */
export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';
const MODES = ['enforce', 'audit', 'warn'] as const;

/** Upstream's default configuration: everything privileged at latest. */
export const DEFAULT_POLICY: Policy = {
  enforce: { level: 'privileged', version: LATEST },
  audit: { level: 'privileged', version: LATEST },
  warn: { level: 'privileged', version: LATEST },
};

export function parseLevel(value: string): Level | undefined {
  return (LEVELS as readonly string[]).includes(value) ? (value as Level) : undefined;
}

export function parseVersion(value: string): Version | undefined {
  if (value === 'latest') return LATEST;
  const m = /^v1\.(0|[1-9][0-9]*)$/.exec(value);
  return m ? v1(Number(m[1])) : undefined;
}

/**
 * The policy a namespace's labels select over the defaults, with the label
 * errors (upstream's api.PolicyToEvaluate): a bad enforce level enforces
 * restricted, a bad audit or warn level is privileged, a bad version is
 * latest; without its own warn label, warn is at least the enforce level.
 */
export function policyToEvaluate(labels: Record<string, string> | undefined, defaults: Policy = DEFAULT_POLICY): { policy: Policy; errors: FieldError[] } {
  const policy: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: FieldError[] = [];
  const has = (k: string) => labels !== undefined && Object.prototype.hasOwnProperty.call(labels, k);
  let validEnforceLevel = false;
  for (const mode of MODES) {
    const levelKey = `${LABEL_PREFIX}${mode}`;
    if (has(levelKey)) {
      const value = labels![levelKey];
      const level = parseLevel(value);
      if (level) policy[mode].level = level;
      else {
        policy[mode].level = mode === 'enforce' ? 'restricted' : 'privileged';
        errors.push(invalid(`metadata.labels[${levelKey}]`, value, `must be one of ${LEVELS.join(', ')}`));
      }
      if (mode === 'enforce') validEnforceLevel = level !== undefined;
    }
    const versionKey = `${levelKey}-version`;
    if (has(versionKey)) {
      const value = labels![versionKey];
      const version = parseVersion(value);
      policy[mode].version = version ?? LATEST;
      if (!version) errors.push(invalid(`metadata.labels[${versionKey}]`, value, 'must be "latest" or "v1.x"'));
    }
  }
  if (!has(`${LABEL_PREFIX}warn`) && validEnforceLevel && compareLevels(policy.enforce.level, policy.warn.level) > 0) {
    policy.warn.level = policy.enforce.level;
    if (!has(`${LABEL_PREFIX}warn-version`)) policy.warn.version = policy.enforce.version;
  }
  return { policy, errors };
}
