import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Pod, Volume } from 'kubernetes-types/core/v1.js';
import { Quantity } from '../../machinery/quantity.js';
import { podResourceConfig } from '../pod/pod-cgroups.js';

/**
 * The size of a `medium: Memory` emptyDir's tmpfs, as upstream's
 * calculateEmptyDirMemorySize: the node's allocatable memory, lowered to
 * the pod's memory cap when it has one, lowered to the volume's sizeLimit.
 * The pages count against the pod's memory cgroup either way.
 */
export function emptyDirMemorySize(v: Volume, pod: Pod, allocatable: Record<string, string>): number | undefined {
  const sizes: number[] = [];
  if (allocatable.memory) sizes.push(Quantity.parse(String(allocatable.memory)).value());
  const podLimit = podResourceConfig(pod).memoryLimitBytes;
  if (podLimit) sizes.push(podLimit);
  const limit = v.emptyDir?.sizeLimit;
  if (limit !== undefined) {
    const bytes = Quantity.parse(String(limit)).value();
    if (bytes > 0) sizes.push(bytes);
  }
  return sizes.length ? Math.min(...sizes) : undefined;
}

/** The mount points under `dir` (itself included), deepest first, from /proc/self/mountinfo. */
export function mountsUnder(dir: string): string[] {
  let info: string;
  try {
    info = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  // mountinfo escapes spaces and the like as octal (\040)
  const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
  return info.split('\n').map((l) => unescape(l.split(' ')[4] ?? '')).filter((m) => m === dir || m.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length);
}

/** Mounts a tmpfs of `sizeBytes` on `dir` unless one is there already (a restarted kubelet finds its mounts). */
export function mountTmpfs(dir: string, sizeBytes: number | undefined): void {
  if (mountsUnder(dir).includes(dir)) return;
  execFileSync('mount', ['-t', 'tmpfs', '-o', sizeBytes ? `size=${sizeBytes},mode=0777` : 'mode=0777', 'tmpfs', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Unmounts whatever is mounted under `dir` (a pod's tmpfs volumes) before the directory is removed. */
export function unmountAll(dir: string): void {
  for (const m of mountsUnder(dir)) {
    try {
      execFileSync('umount', [m], { stdio: 'ignore' });
    } catch {
      // busy: lazily, so the pod's directory can go
      execFileSync('umount', ['-l', m], { stdio: 'ignore' });
    }
  }
}
