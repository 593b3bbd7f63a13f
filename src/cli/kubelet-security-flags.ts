import { join } from 'node:path';
import { cgroupVersion, hostCgroupDriver, type CgroupDriver } from '../kubelet/containerd/containerd-config.js';
import { PodCgroups } from '../kubelet/pod/pod-cgroups.js';
import type { SecurityOptions } from '../kubelet/pod/security-context.js';
import { SysctlAllowlist, SysctlPatternError } from '../kubelet/pod/sysctl-allowlist.js';
import type { FlagValues } from './command.js';
import { UsageError } from './flags.js';

/** The kubelet's security and resource flags: sysctl admission, seccomp, pod cgroups (for a CRI runtime) with `--pod-max-pids`. */
export function securityFlags(flags: FlagValues, rootDir: string, cri: boolean): { security: SecurityOptions; sysctls: SysctlAllowlist; cgroups?: PodCgroups } {
  const str = (k: string) => String(flags[k] ?? '');
  let sysctls: SysctlAllowlist;
  try {
    sysctls = new SysctlAllowlist(str('allowed-unsafe-sysctls').split(',').map((x) => x.trim()).filter(Boolean));
  } catch (err) {
    if (err instanceof SysctlPatternError) throw new UsageError(`--allowed-unsafe-sysctls: ${err.message}`);
    throw err;
  }
  const maxPids = Number(str('pod-max-pids'));
  if (!Number.isInteger(maxPids) || maxPids < -1) throw new UsageError(`invalid --pod-max-pids ${JSON.stringify(str('pod-max-pids'))}, want a whole number (-1: unlimited)`);
  const perQos = str('cgroups-per-qos');
  if (perQos !== 'true' && perQos !== 'false') throw new UsageError(`invalid --cgroups-per-qos ${JSON.stringify(perQos)}, want true or false`);
  const driver = str('cgroup-driver') || hostCgroupDriver();
  if (driver !== 'cgroupfs' && driver !== 'systemd') throw new UsageError(`invalid --cgroup-driver ${JSON.stringify(driver)}, want cgroupfs or systemd`);
  return {
    security: { seccompProfileRoot: join(rootDir, 'seccomp'), seccompDefault: flags['seccomp-default'] === true },
    sysctls,
    ...(cri && perQos === 'true' ? { cgroups: new PodCgroups({ driver: driver as CgroupDriver, version: cgroupVersion(), podMaxPids: maxPids }) } : {}),
  };
}
