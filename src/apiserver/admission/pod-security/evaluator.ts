import type { PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Check, CheckResult, VersionedCheck } from './check.js';
import * as b from './checks-baseline.js';
import * as r from './checks-restricted.js';
import { compareVersions, v1, type LevelVersion, type Version } from './levels.js';

/** Upstream's default checks, each with the policy versions its implementation changed in. */
export const CHECKS: readonly Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimumVersion: v1(0), check: b.appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ minimumVersion: v1(0), check: b.capabilitiesBaseline }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimumVersion: v1(0), check: b.hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ minimumVersion: v1(0), check: b.hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimumVersion: v1(0), check: b.hostPorts }] },
  { id: 'hostProbesAndHostLifecycle', level: 'baseline', versions: [{ minimumVersion: v1(34), check: b.hostProbesAndHostLifecycle }] },
  { id: 'privileged', level: 'baseline', versions: [{ minimumVersion: v1(0), check: b.privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ minimumVersion: v1(0), check: b.procMount }] },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    versions: [
      { minimumVersion: v1(0), check: b.seLinuxOptions_1_0 },
      { minimumVersion: v1(31), check: b.seLinuxOptions_1_31 },
    ],
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    versions: [
      { minimumVersion: v1(0), check: b.seccompProfileBaseline_1_0 },
      { minimumVersion: v1(19), check: b.seccompProfileBaseline_1_19 },
    ],
  },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { minimumVersion: v1(0), check: b.sysctls_1_0 },
      { minimumVersion: v1(27), check: b.sysctls_1_27 },
      { minimumVersion: v1(29), check: b.sysctls_1_29 },
      { minimumVersion: v1(32), check: b.sysctls_1_32 },
    ],
  },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimumVersion: v1(0), check: b.windowsHostProcess }] },
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [
      { minimumVersion: v1(8), check: r.allowPrivilegeEscalation },
      { minimumVersion: v1(25), check: r.exceptWindows(r.allowPrivilegeEscalation) },
    ],
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: v1(22), check: r.capabilitiesRestricted, overrides: ['capabilities_baseline'] },
      { minimumVersion: v1(25), check: r.exceptWindows(r.capabilitiesRestricted), overrides: ['capabilities_baseline'] },
    ],
  },
  { id: 'procMount_restricted', level: 'restricted', versions: [{ minimumVersion: v1(35), check: b.procMount, overrides: ['procMount'] }] },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimumVersion: v1(0), check: r.restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimumVersion: v1(0), check: r.runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimumVersion: v1(23), check: r.runAsUser }] },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: v1(19), check: r.seccompProfileRestricted, overrides: ['seccompProfile_baseline'] },
      { minimumVersion: v1(25), check: r.exceptWindows(r.seccompProfileRestricted), overrides: ['seccompProfile_baseline'] },
    ],
  },
];

/** The failed checks of one evaluation, in check order. */
export interface AggregateResult {
  allowed: boolean;
  /** `privileged, runAsNonRoot != true` (upstream's ForbiddenReason, used when warning about existing pods). */
  forbiddenReason: string;
  /** `privileged (container "c" must not set securityContext.privileged=true), …` */
  forbiddenDetail: string;
}

export function aggregate(results: readonly CheckResult[]): AggregateResult {
  const failed = results.filter((x) => !x.allowed);
  const reasons = failed.map((x) => x.reason || 'unknown forbidden reason');
  return {
    allowed: failed.length === 0,
    forbiddenReason: reasons.join(', '),
    forbiddenDetail: failed.map((x, i) => (x.detail ? `${reasons[i]} (${x.detail})` : reasons[i])).join(', '),
  };
}

/**
 * Runs the checks of a level at a version (upstream's policy.Evaluator):
 * baseline checks then restricted ones, each by ID; a version newer than
 * every check's newest implementation (or `latest`) uses the newest ones.
 */
export class Evaluator {
  private readonly ordered: readonly Check[];
  private readonly maxVersion: Version;

  constructor(checks: readonly Check[] = CHECKS) {
    const byId = (x: Check, y: Check) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
    this.ordered = [...checks.filter((c) => c.level === 'baseline').sort(byId), ...checks.filter((c) => c.level === 'restricted').sort(byId)];
    this.maxVersion = checks
      .flatMap((c) => c.versions.map((v) => v.minimumVersion))
      .reduce((max, v) => (compareVersions(v, max) > 0 ? v : max), v1(0));
  }

  evaluate(lv: LevelVersion, meta: ObjectMeta | undefined, spec: PodSpec | undefined): CheckResult[] {
    if (lv.level === 'privileged') return [];
    const version = compareVersions(lv.version, this.maxVersion) > 0 ? this.maxVersion : lv.version;
    const applicable: { check: Check; at: VersionedCheck }[] = [];
    for (const check of this.ordered) {
      if (check.level === 'restricted' && lv.level !== 'restricted') continue;
      const at = [...check.versions].reverse().find((v) => compareVersions(v.minimumVersion, version) <= 0);
      if (at) applicable.push({ check, at });
    }
    const overridden = new Set(applicable.flatMap((a) => a.at.overrides ?? []));
    return applicable.filter((a) => !overridden.has(a.check.id)).map((a) => a.at.check(meta ?? {}, spec ?? { containers: [] }));
  }
}
