// The host's iptables, shared by kube-proxy's iptables mode and the network policy controller.
import { execFile, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** An iptables command failed: carries its arguments and stderr. */
export class IptablesError extends Error {
  override readonly name = 'IptablesError';
  constructor(
    readonly command: string,
    readonly args: readonly string[],
    readonly stderr: string,
  ) {
    super(`${command} ${args.join(' ')}: ${stderr.trim()}`);
  }
}

/** A jump from a built-in chain into one of ours, kept first in the built-in chain. */
export interface Jump {
  table: 'filter' | 'nat';
  from: string;
  to: string;
  comment?: string;
  extra?: readonly string[];
  /** Kept the first rule of `from`: moved back to the top when something was inserted above it (kube-router's jumps). */
  first?: boolean;
}

/** What the iptables mode needs from the host (small, so tests can record it). */
export interface Iptables {
  /** Creates `jump.to` if missing and inserts the jump at the top of `jump.from` unless present. */
  ensureJump(jump: Jump): Promise<void>;
  deleteJump(jump: Jump): Promise<void>;
  /** iptables-restore --noflush: only the chains declared in `input` are replaced. */
  restore(input: string): Promise<void>;
  /** The chain names of one table (iptables-save). */
  chains(table: 'filter' | 'nat'): Promise<string[]>;
  /** Whether MASQUERADE supports --random-fully. */
  hasRandomFully(): Promise<boolean>;
}

function jumpArgs(j: Jump): string[] {
  return [...(j.extra ?? []), ...(j.comment ? ['-m', 'comment', '--comment', j.comment] : []), '-j', j.to];
}

async function run(command: string, args: string[]): Promise<string> {
  try {
    return (await exec(command, args, { maxBuffer: 256 * 1024 * 1024 })).stdout;
  } catch (err) {
    throw new IptablesError(command, args, (err as { stderr?: string }).stderr ?? String(err));
  }
}

/** The host's iptables binaries (legacy or nft, whichever `iptables` is). */
export class ExecIptables implements Iptables {
  async ensureJump(j: Jump): Promise<void> {
    try {
      await run('iptables', ['-w', '-t', j.table, '-N', j.to]);
    } catch (err) {
      if (!(err instanceof IptablesError && /exists/i.test(err.stderr))) throw err;
    }
    if (j.first) {
      const rules = (await run('iptables', ['-w', '-t', j.table, '-S', j.from])).split('\n').filter((l) => l.startsWith('-A '));
      if (rules[0]?.endsWith(` -j ${j.to}`)) return;
      await this.deleteJump(j);
      await run('iptables', ['-w', '-t', j.table, '-I', j.from, '1', ...jumpArgs(j)]);
      return;
    }
    try {
      await run('iptables', ['-w', '-t', j.table, '-C', j.from, ...jumpArgs(j)]);
    } catch {
      await run('iptables', ['-w', '-t', j.table, '-I', j.from, '1', ...jumpArgs(j)]);
    }
  }

  async deleteJump(j: Jump): Promise<void> {
    // every copy (a jump inserted twice by a crashed run)
    for (let i = 0; i < 16; i++) {
      try {
        await run('iptables', ['-w', '-t', j.table, '-D', j.from, ...jumpArgs(j)]);
      } catch {
        return; // not there (any more)
      }
    }
  }

  restore(input: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const args = ['-w', '--noflush', '--counters'];
      const p = spawn('iptables-restore', args, { stdio: ['pipe', 'ignore', 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('error', (err) => reject(new IptablesError('iptables-restore', args, String(err))));
      p.on('close', (code) => (code === 0 ? resolve() : reject(new IptablesError('iptables-restore', args, stderr || `exit ${code}`))));
      p.stdin.end(input);
    });
  }

  async chains(table: 'filter' | 'nat'): Promise<string[]> {
    const text = await run('iptables-save', ['-t', table]);
    return text.split('\n').filter((l) => l.startsWith(':')).map((l) => l.slice(1).split(' ')[0]);
  }

  async hasRandomFully(): Promise<boolean> {
    const v = /v(\d+)\.(\d+)\.(\d+)/.exec(await run('iptables', ['--version']));
    if (!v) return false;
    const [maj, min, patch] = v.slice(1).map(Number);
    return maj > 1 || (maj === 1 && (min > 6 || (min === 6 && patch >= 2)));
  }
}

/** Sets a sysctl under /proc/sys (e.g. `net/ipv4/conf/all/route_localnet`); false when it cannot. */
export async function setSysctl(name: string, value: string): Promise<boolean> {
  try {
    await writeFile(`/proc/sys/${name}`, value);
    return true;
  } catch {
    return false;
  }
}
