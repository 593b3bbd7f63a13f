import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { constants as osConstants } from 'node:os';
import { RuntimeError, type ExecResult } from '../runtime.js';

export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Signals a whole process group; a group that is already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is already gone
  }
}

/** Resolves a command the way execvp does; undefined if it cannot run. */
export function resolveExecutable(cmd: string, path: string): string | undefined {
  const candidates = cmd.includes('/') ? [cmd] : path.split(delimiter).filter(Boolean).map((d) => join(d, cmd));
  for (const f of candidates) {
    if (!isAbsolute(f) && !cmd.includes('/')) continue;
    try {
      accessSync(f, fsConstants.X_OK);
      if (statSync(f).isFile()) return f;
    } catch {
      // try the next directory
    }
  }
  return undefined;
}

/** Runs a command to completion, collecting its output; killed once `timeoutMs` passes. */
export function execSync(argv: string[], opts: { env: Record<string, string>; cwd: string; timeoutMs: number }): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(argv[0], argv.slice(1), { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs);
    p.once('error', (err) => {
      clearTimeout(timer);
      reject(new RuntimeError('RunContainerError', err.message));
    });
    p.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ exitCode: code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0), stdout, stderr });
    });
  });
}
