import { execFile } from 'node:child_process';
import { readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../../machinery/logger.js';

export interface NetnsGCOptions {
  /**
   * Where the runtime pins its pods' network namespaces, and nothing else
   * does: the supervised containerd's `<state>/io.containerd.grpc.v1.cri/netns`
   * (`netns_mounts_under_state_dir`), one directory per node.
   */
  dir: string;
  /** The namespace paths the runtime's sandboxes hold, whatever their state (asked after the directory is read). */
  heldPaths(): Promise<Set<string>>;
  /** When the oldest sandbox creation still in flight started (ms since the epoch): its namespace exists before the sandbox is listed. */
  creatingSince(): number | undefined;
  /** Namespaces younger than this are left alone (default 60 s, as for leaked pod IPs). */
  minAgeMs?: number;
  now?: () => number;
  /** Whether a process still runs in the namespace (default: any /proc/<pid>/ns/net is it). */
  inUse?(path: string): boolean;
  /** Detaches the bind mount that pins the namespace (default `umount --lazy`); a plain file has none. */
  unmount?(path: string): Promise<void>;
  logger: Logger;
}

const exec = promisify(execFile);

/**
 * Removes pinned network namespaces no sandbox holds any more. containerd
 * removes a sandbox's namespace when it stops the sandbox, but one whose
 * sandbox it never stops is left pinned for good (a teardown that failed
 * half-way, containerd or its records lost with the kubelet killed, a
 * RunPodSandbox cut short): an empty namespace and a mount each. Runs in
 * the kubelet's housekeeping after orphaned sandboxes are removed, and
 * once more after a stop that removed every pod.
 */
export class NetnsGC {
  constructor(private readonly o: NetnsGCOptions) {}

  /** Removes the stale namespaces; returns their paths. */
  async removeStale(): Promise<string[]> {
    const now = (this.o.now ?? Date.now)();
    // the cut-off is fixed before anything is read: a namespace made later belongs to a creation this pass cannot see
    const cutoff = Math.min(now - (this.o.minAgeMs ?? 60_000), this.o.creatingSince() ?? Infinity);
    const candidates = pinnedNamespaces(this.o.dir).filter((n) => n.createdAt < cutoff).map((n) => n.path);
    if (candidates.length === 0) return [];
    const held = await this.o.heldPaths();
    const inUse = this.o.inUse ?? namespaceInUse();
    const removed: string[] = [];
    for (const path of candidates) {
      // a namespace a process still runs in is never judged stale, whatever the runtime says
      if (held.has(path) || inUse(path)) continue;
      try {
        await (this.o.unmount ?? lazyUnmount)(path);
        rmSync(path, { force: true });
        removed.push(path);
        this.o.logger.info('removed the network namespace of a pod sandbox that no longer exists', { netns: path });
      } catch (err) {
        this.o.logger.warn('removing a stale network namespace failed', { netns: path, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return removed;
  }
}

/** The namespace files in `dir` with when each was made (a pinned namespace's own inode time; a bare file's mtime). */
export function pinnedNamespaces(dir: string): { path: string; createdAt: number }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: { path: string; createdAt: number }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      out.push({ path, createdAt: statSync(path).mtimeMs });
    } catch {
      // removed meanwhile
    }
  }
  return out;
}

/** A check whether any process is in the namespace pinned at a path (inode against every /proc/<pid>/ns/net, read once per pass). */
function namespaceInUse(): (path: string) => boolean {
  let inodes: Set<string> | undefined;
  return (path) => {
    if (!inodes) {
      inodes = new Set();
      for (const pid of readdirSync('/proc')) {
        if (!/^\d+$/.test(pid)) continue;
        try {
          inodes.add(readlinkSync(`/proc/${pid}/ns/net`));
        } catch {
          // exited, or a kernel thread
        }
      }
    }
    try {
      return inodes.has(`net:[${statSync(path).ino}]`);
    } catch {
      return false;
    }
  };
}

/** `umount --lazy`; a path that is no mount point (a bare file left behind) is fine. */
async function lazyUnmount(path: string): Promise<void> {
  try {
    await exec('umount', ['--lazy', path]);
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? '');
    if (!/not mounted|no mount point/i.test(stderr)) throw err;
  }
}
