import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, rmdirSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The filler file's name inside a scratch disk. */
const FILLER = '.soak-filler';

function run(command: string, args: string[]): string | undefined {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  if (r.error) return `${command}: ${r.error.message}`;
  if (r.status !== 0) return `${command} ${args.join(' ')} exited ${r.status}: ${(r.stderr || r.stdout).trim()}`;
  return undefined;
}

/**
 * A small file system of its own (a tmpfs with a size limit) under the
 * soak's directory, so the disk-full fault can fill it without touching the
 * host's disks: a filler file takes every free byte, and removing it gives
 * the space back.
 */
export class ScratchDisk {
  private constructor(
    readonly mountPoint: string,
    readonly sizeMiB: number,
  ) {}

  /** Mounts a tmpfs of `sizeMiB` at `mountPoint` (created; mode 0700, as etcd wants its data dir). Throws with mount's message. */
  static mount(mountPoint: string, sizeMiB: number): ScratchDisk {
    mkdirSync(mountPoint, { recursive: true });
    const failed = run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0700`, 'tmpfs', mountPoint]);
    if (failed) throw new Error(`cannot mount a tmpfs at ${mountPoint}: ${failed}`);
    return new ScratchDisk(mountPoint, sizeMiB);
  }

  get fillerPath(): string {
    return join(this.mountPoint, FILLER);
  }

  /** Bytes still free for an unprivileged writer. */
  freeBytes(): number {
    const s = statfsSync(this.mountPoint);
    return s.bavail * s.bsize;
  }

  /** Writes the filler until the file system answers ENOSPC, down to its last 4 KiB; returns the bytes written. */
  fill(): number {
    const fd = openSync(this.fillerPath, 'a');
    let written = 0;
    try {
      for (const size of [1024 * 1024, 64 * 1024, 4096]) {
        const chunk = Buffer.alloc(size, 0x2e);
        for (;;) {
          try {
            const n = writeSync(fd, chunk);
            written += n;
            if (n < size) break;
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
            throw err;
          }
        }
      }
    } finally {
      closeSync(fd);
    }
    return written;
  }

  /** Removes the filler: the space is back. */
  free(): void {
    rmSync(this.fillerPath, { force: true });
  }

  /** Frees and unmounts (lazily if still busy), and removes the mount point. Never throws. */
  unmount(): void {
    try {
      this.free();
    } catch {
      // unmounting drops it anyway
    }
    if (run('umount', [this.mountPoint]) !== undefined) run('umount', ['-l', this.mountPoint]);
    try {
      rmdirSync(this.mountPoint);
    } catch {
      // not empty: it was not unmounted, or something was written below it after all; the soak's directory removal handles it
    }
  }
}

/**
 * Why the disk-full fault cannot run here, or undefined when it can: it
 * needs root and a working `mount -t tmpfs` (a container without
 * CAP_SYS_ADMIN has neither). Tries a 1 MiB mount under `dir`.
 */
export function diskFaultUnsupported(dir: string, uid = process.getuid?.()): string | undefined {
  if (uid !== 0) return 'not root (mounting a small file system to fill needs root)';
  try {
    ScratchDisk.mount(join(dir, 'mount-probe'), 1).unmount();
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
}
