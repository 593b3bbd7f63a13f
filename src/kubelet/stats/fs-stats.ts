import { lstat, readdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { FsStats } from './summary.js';

/** A filesystem's size, free space and inodes (statfs), as the summary reports nodefs and imagefs; undefined if it cannot be read. */
export async function filesystemStats(path: string, now: Date): Promise<FsStats | undefined> {
  try {
    const s = await statfs(path);
    const capacityBytes = s.blocks * s.bsize;
    return {
      time: now.toISOString(),
      availableBytes: s.bavail * s.bsize,
      capacityBytes,
      usedBytes: Math.max(0, capacityBytes - s.bfree * s.bsize),
      inodesFree: s.ffree,
      inodes: s.files,
      inodesUsed: Math.max(0, s.files - s.ffree),
    };
  } catch {
    return undefined;
  }
}

export interface DirectoryUsage {
  usedBytes: number;
  inodesUsed: number;
}

/**
 * What a directory tree holds, as `du` counts it (allocated blocks, each
 * inode once, symlinks not followed, other filesystems not entered). A
 * missing directory holds nothing.
 */
export async function directoryUsage(path: string): Promise<DirectoryUsage> {
  const seen = new Set<bigint>();
  const usage: DirectoryUsage = { usedBytes: 0, inodesUsed: 0 };
  let rootDev: number | undefined;
  const visit = async (p: string): Promise<void> => {
    let st;
    try {
      st = await lstat(p, { bigint: true });
    } catch {
      return; // gone meanwhile
    }
    rootDev ??= Number(st.dev);
    if (Number(st.dev) !== rootDev) return;
    if (!seen.has(st.ino)) {
      seen.add(st.ino);
      usage.usedBytes += Number(st.blocks) * 512;
      usage.inodesUsed += 1;
    }
    if (!st.isDirectory()) return;
    let names: string[];
    try {
      names = await readdir(p);
    } catch {
      return;
    }
    for (const name of names) await visit(join(p, name));
  };
  await visit(path);
  return usage;
}
