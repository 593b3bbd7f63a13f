import type { Container, PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Level, Version } from './levels.js';

/** One check's answer: allowed, or why not (reason) and what exactly (detail). */
export interface CheckResult {
  allowed: boolean;
  reason?: string;
  detail?: string;
}

export const ALLOWED: CheckResult = { allowed: true };

export function denied(reason: string, detail: string): CheckResult {
  return { allowed: false, reason, detail };
}

export type CheckPod = (meta: ObjectMeta, spec: PodSpec) => CheckResult;

/** A check's implementation from one policy version on. */
export interface VersionedCheck {
  minimumVersion: Version;
  check: CheckPod;
  /** Baseline checks this restricted check replaces from this version on. */
  overrides?: string[];
}

/** One Pod Security Standards control, as upstream's policy.Check: an ID, its level, its versions (oldest first). */
export interface Check {
  id: string;
  level: Exclude<Level, 'privileged'>;
  versions: VersionedCheck[];
}

/** Every container of the pod in upstream's visiting order: init, regular, ephemeral. */
export function allContainers(spec: PodSpec): Container[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...((spec.ephemeralContainers ?? []) as Container[])];
}

/** `"a", "b"` */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** `container "a"` / `containers "a", "b"` */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** Go's %q for the plain strings found in annotations. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** Sorted, without duplicates (Go's sets.NewString(...).List()). */
export function sortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort();
}

/** `pod and containers "a"` — who set a forbidden value. */
export function settersPhrase(podSet: boolean, badContainers: readonly string[]): string {
  const setters = podSet ? ['pod'] : [];
  if (badContainers.length > 0) setters.push(containersPhrase(badContainers));
  return setters.join(' and ');
}

export function isWindows(spec: PodSpec): boolean {
  return spec.os?.name === 'windows';
}
