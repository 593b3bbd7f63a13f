import { existsSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync, readFileSync, chmodSync, lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Relative path → content and mode. */
export type Payload = Map<string, { data: Buffer; mode?: number }>;

function samePayload(dir: string, payload: Payload): boolean {
  const data = join(dir, '..data');
  if (!existsSync(data)) return false;
  const current = join(dir, readlinkSync(data));
  const files = new Set<string>();
  const walk = (d: string, prefix: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${prefix}${e.name}/`);
      else files.add(`${prefix}${e.name}`);
    }
  };
  walk(current, '');
  if (files.size !== payload.size) return false;
  for (const [p, f] of payload) {
    if (!files.has(p) || !readFileSync(join(current, p)).equals(f.data)) return false;
  }
  return true;
}

/**
 * Writes a volume's files the way the kubelet's AtomicWriter does, so a
 * reader never sees a half-updated set: the files go into a fresh `..<ts>`
 * directory, the `..data` symlink is swapped to it in one rename, and each
 * top-level name is a symlink through `..data`. Returns whether anything changed.
 */
export function writeAtomically(dir: string, payload: Payload): boolean {
  mkdirSync(dir, { recursive: true });
  if (samePayload(dir, payload)) return false;
  const stamp = `..${new Date().toISOString().replace(/[:.]/g, '_')}.${process.hrtime.bigint()}`;
  const fresh = join(dir, stamp);
  mkdirSync(fresh);
  for (const [p, f] of payload) {
    const file = join(fresh, p);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, f.data);
    chmodSync(file, f.mode ?? 0o644);
  }
  const old = existsSync(join(dir, '..data')) ? readlinkSync(join(dir, '..data')) : undefined;
  symlinkSync(stamp, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  const top = new Set([...payload.keys()].map((p) => p.split('/')[0]));
  for (const name of top) {
    if (!existsSync(join(dir, name))) symlinkSync(join('..data', name), join(dir, name));
  }
  for (const e of readdirSync(dir)) {
    if (e.startsWith('..') || top.has(e)) continue;
    if (lstatSync(join(dir, e)).isSymbolicLink()) rmSync(join(dir, e));
  }
  if (old) rmSync(join(dir, old), { recursive: true, force: true });
  return true;
}
