import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote } from './container-script.js';

/** The files a container's shim works with, in the container's state directory. */
export interface ShimFiles {
  stdout: string;
  stderr: string;
  /** Written by the shim once the container has exited: its exit status (128+n for signal n). */
  exit: string;
}

export function shimFiles(dir: string): ShimFiles {
  return { stdout: join(dir, 'stdout'), stderr: join(dir, 'stderr'), exit: join(dir, 'exit') };
}

/**
 * The shim, in the role conmon plays for CRI-O: a tiny sh that is the
 * container's parent and outlives the kubelet. It starts the container in a
 * session of its own (so stop signals sent to the container's process group
 * never reach the shim), with stdout and stderr on FIFOs opened read-write
 * (so writes never fail while no kubelet reads them: the kernel buffers, then
 * the container blocks), waits for it, and records its exit status in a file
 * a restarted kubelet can read. The container reports its pid on fd 3, the
 * shim's stdout, once it is set up. Variables are prefixed because the shim
 * runs with the container's environment. The container's argv comes from a
 * file rather than the shim's own, so `ps` and `pgrep` show it once, on the
 * container.
 */
const SHIM_SCRIPT = [
  '__skiff_dir=$1; . "$__skiff_dir/argv"; __skiff_s=$__skiff_setsid; unset __skiff_setsid',
  '"$__skiff_s" "$@" 3>&1 1<>"$__skiff_dir/stdout" 2<>"$__skiff_dir/stderr"',
  'echo $? > "$__skiff_dir/exit.tmp" && mv -f "$__skiff_dir/exit.tmp" "$__skiff_dir/exit"',
].join('\n');

export interface StartedShim {
  shim: ChildProcess;
  /** The container's pid once it reported in; undefined if it ended before (its setup failed). */
  pid: Promise<number | undefined>;
}

/** Spawns the shim for `argv` (the container's full argv, setup script included). */
export function spawnShim(opts: { dir: string; argv: string[]; env: Record<string, string>; stdin: boolean; setsid: string }): StartedShim {
  writeFileSync(join(opts.dir, 'argv'), `set -- ${opts.argv.map(shellQuote).join(' ')}\n`, { mode: 0o600 });
  const shim = spawn('/bin/sh', ['-c', SHIM_SCRIPT, 'skiff-shim', opts.dir], {
    env: { ...opts.env, __skiff_setsid: opts.setsid },
    cwd: '/',
    detached: true,
    stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'ignore'],
  });
  const pid = new Promise<number | undefined>((resolve, reject) => {
    let text = '';
    shim.once('error', reject);
    shim.stdout!.on('data', (d: Buffer) => {
      text += d.toString();
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      resolve(Number(text.slice(0, nl)) || undefined);
      // the pid line is all the sync pipe carries; the kubelet may go away from now on
      shim.stdout!.destroy();
    });
    shim.stdout!.once('close', () => resolve(undefined));
  });
  return { shim, pid };
}

/** The exit status the shim recorded, with when it was written; undefined while the container runs. */
export function readExitFile(path: string): { exitCode: number; finishedAt: Date } | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim();
    if (!/^\d+$/.test(text)) return undefined;
    return { exitCode: Number(text), finishedAt: statSync(path).mtime };
  } catch {
    return undefined;
  }
}
