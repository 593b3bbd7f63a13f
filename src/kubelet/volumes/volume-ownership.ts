import { chmodSync, lchownSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

/**
 * upstream's SetVolumeOwnership for a pod's `fsGroup`: every file and
 * directory of the volume is given the group, group read (and write, unless
 * the volume is read-only), and directories group search and setgid, so
 * files created later inherit the group. Symlinks only change group.
 * `OnRootMismatch` skips the walk when the root already fits.
 */
export function setVolumeOwnership(dir: string, fsGroup: number, readOnly: boolean, policy?: string): void {
  const mask = readOnly ? RO_MASK : RW_MASK;
  if (policy === 'OnRootMismatch') {
    const st = lstatSync(dir);
    if (st.gid === fsGroup && (st.mode & (mask | EXEC_MASK | SETGID)) === (mask | EXEC_MASK | SETGID)) return;
  }
  const visit = (path: string): void => {
    const st = lstatSync(path);
    lchownSync(path, -1, fsGroup);
    if (st.isSymbolicLink()) return;
    const mode = st.mode & 0o7777;
    if (st.isDirectory()) {
      chmodSync(path, mode | mask | EXEC_MASK | SETGID);
      for (const e of readdirSync(path)) visit(join(path, e));
    } else {
      chmodSync(path, mode | mask);
    }
  };
  visit(dir);
}
