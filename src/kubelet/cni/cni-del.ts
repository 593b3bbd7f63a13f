import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A CNI plugin refused a DEL; `code` and `msg` are its error result (CNI spec's error codes). */
export class CniPluginError extends Error {
  override readonly name = 'CniPluginError';
  constructor(readonly plugin: string, readonly code: number, message: string) {
    super(`CNI plugin ${plugin}: ${message}`);
  }
}

interface Conflist {
  cniVersion?: string;
  name?: string;
  plugins?: ({ type?: string } & Record<string, unknown>)[];
}

export interface CniDelOptions {
  /** The network's conflist file (the one the runtime set the pod up with). */
  conflistPath: string;
  /** Where the plugin binaries are (CNI_PATH). */
  binDir: string;
  /** The sandbox id the runtime used as CNI_CONTAINERID. */
  containerId: string;
  /** The pod's interface (containerd's is `eth0`). */
  ifName?: string;
  /** The network namespace's path; empty when it is gone, and plugins then only release what they hold on the host (IPAM, rules). */
  netns?: string;
}

/**
 * A CNI DEL of one attachment, as a runtime runs it (CNI spec's
 * "Deleting an attachment" for a conflist): every plugin in reverse order
 * with the network's name and version, `CNI_COMMAND=DEL`. The kubelet uses
 * it for attachments whose sandbox the runtime has forgotten, so host-local
 * releases their IPs. DEL is idempotent: what is already gone is success.
 */
export async function cniDel(o: CniDelOptions): Promise<void> {
  const conf = JSON.parse(readFileSync(o.conflistPath, 'utf8')) as Conflist;
  const plugins = [...(conf.plugins ?? [])].reverse();
  for (const plugin of plugins) {
    if (!plugin.type || !/^[\w.-]+$/.test(plugin.type)) throw new CniPluginError(String(plugin.type), 7, 'plugin type is not a plain file name');
    const stdin = JSON.stringify({ ...plugin, cniVersion: conf.cniVersion, name: conf.name });
    await runPlugin(join(o.binDir, plugin.type), plugin.type, stdin, {
      CNI_COMMAND: 'DEL', CNI_CONTAINERID: o.containerId, CNI_NETNS: o.netns ?? '', CNI_IFNAME: o.ifName ?? 'eth0', CNI_PATH: o.binDir,
    });
  }
}

function runPlugin(path: string, type: string, stdin: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(path, [], { env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', (e) => reject(new CniPluginError(type, 0, e.message)));
    child.once('close', (code) => {
      if (code === 0) return resolve();
      let msg = err.trim() || `exited with ${code}`;
      let errCode = 0;
      try {
        const result = JSON.parse(out) as { code?: number; msg?: string; details?: string };
        errCode = result.code ?? 0;
        msg = [result.msg, result.details].filter(Boolean).join(': ') || msg;
      } catch {
        // not a CNI error result
      }
      reject(new CniPluginError(type, errCode, msg));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  });
}
