import type { Mount } from '../runtime.js';

/** Quotes a string for POSIX sh. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The sh script that sets a container up from the inside before exec'ing its
 * command ("$@"): join the cgroup first (so every byte the command allocates
 * counts), then hostname, bind mounts (in the private mount namespace) and
 * working directory. Last it reports its pid on fd 3 (the shim's sync pipe,
 * closed for the command): the container counts as started from then on.
 */
export function containerScript(opts: { hostname?: string; mounts: Mount[]; cgroupProcs: string[]; workingDir?: string }): string {
  const lines = ['set -e'];
  for (const f of opts.cgroupProcs) lines.push(`echo $$ > ${shellQuote(f)}`);
  if (opts.hostname) lines.push(`echo ${shellQuote(opts.hostname)} > /proc/sys/kernel/hostname`);
  for (const m of opts.mounts) {
    const target = shellQuote(m.containerPath);
    lines.push(`if [ -d ${shellQuote(m.hostPath)} ]; then mkdir -p ${target}; else mkdir -p "$(dirname ${target})"; [ -e ${target} ] || : > ${target}; fi`);
    lines.push(`mount --bind ${shellQuote(m.hostPath)} ${target}`);
    if (m.readOnly) lines.push(`mount -o remount,bind,ro ${target}`);
  }
  if (opts.workingDir) lines.push(`mkdir -p ${shellQuote(opts.workingDir)}`, `cd ${shellQuote(opts.workingDir)}`);
  lines.push('echo $$ >&3', 'exec "$@" 3>&-');
  return lines.join('\n');
}
