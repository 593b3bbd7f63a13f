import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { NoSpaceError } from '../errors.js';
import type { StorageAlarm } from '../storage.js';

/** etcd's default --quota-backend-bytes (2 GiB). */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024;

/** Free bytes on the file system below which a disk-full alarm stays raised. */
const DISK_RECOVERED_BYTES = 1024 * 1024;

/**
 * etcd's NOSPACE behaviour for one database file. The quota alarm is raised
 * when a write would take the file past the quota and the disk alarm when a
 * commit fails for lack of disk; while either is raised, writes that add data
 * are refused and deletes still go through (so space can be reclaimed).
 * The quota alarm is also raised whenever the file has grown past the quota
 * (deletes under the alarm grow it before compaction shrinks it), and clears
 * once the write that raised it would fit again (after compaction and
 * defragmentation), so it does not flap while the file sits just under the
 * quota; the disk alarm clears when a commit succeeds or the file system has
 * space again (a commit of deletes alone clears nothing).
 */
export class SpaceGuard {
  private size: number;
  private quotaAlarm = false;
  /** Bytes of the put that raised the quota alarm: it clears once they would fit. */
  private refusedBytes = 0;
  private diskAlarm: string | undefined;

  constructor(
    private readonly path: string,
    private readonly quotaBytes: number,
    size: number,
  ) {
    this.size = size;
    this.quotaAlarm = quotaBytes > 0 && size > quotaBytes;
  }

  /** Throws NoSpaceError when a write adding `bytes` may not go ahead. */
  checkPut(bytes: number): void {
    if (this.diskAlarm) throw new NoSpaceError(this.diskAlarm);
    if (this.quotaAlarm) throw new NoSpaceError();
    if (this.quotaBytes > 0 && this.size + bytes > this.quotaBytes) {
      this.quotaAlarm = true;
      this.refusedBytes = bytes;
      throw new NoSpaceError();
    }
  }

  /**
   * The file's size after a commit, compaction or defragmentation. `addedData`: a commit that added data
   * succeeded, so the disk had room; a commit of deletes alone proves nothing (they may fit where a put cannot).
   */
  sized(bytes: number, addedData: boolean): void {
    this.size = bytes;
    if (addedData) this.diskAlarm = undefined;
    if (this.quotaBytes <= 0) return;
    if (bytes > this.quotaBytes) this.quotaAlarm = true;
    else if (this.quotaAlarm && bytes + this.refusedBytes <= this.quotaBytes) this.quotaAlarm = false;
  }

  /** A commit failed with SQLITE_FULL: nothing of it was written. */
  diskFull(): NoSpaceError {
    this.diskAlarm = `no space left on the device of ${this.path}: writes are refused until space is freed`;
    return new NoSpaceError(this.diskAlarm);
  }

  alarms(): StorageAlarm[] {
    if (this.diskAlarm && freeBytes(dirname(this.path)) >= DISK_RECOVERED_BYTES) this.diskAlarm = undefined;
    const out: StorageAlarm[] = [];
    if (this.quotaAlarm) {
      const message = this.size > this.quotaBytes
        ? `database size ${this.size} bytes exceeds the quota of ${this.quotaBytes} bytes`
        : `database size ${this.size} bytes leaves no room for a write of ${this.refusedBytes} bytes under the quota of ${this.quotaBytes} bytes`;
      out.push({ type: 'NOSPACE', message });
    }
    if (this.diskAlarm) out.push({ type: 'NOSPACE', message: this.diskAlarm });
    return out;
  }
}

function freeBytes(dir: string): number {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return 0;
  }
}
