import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Logger } from '../machinery/logger.js';

const exec = promisify(execFile);

/**
 * Makes service cluster IPs local to this node so a mode can listen on
 * them, the way upstream's ipvs mode binds them to kube-ipvs0.
 */
export interface ServiceAddresses {
  /** True when `ip` is (now) a local address. */
  add(ip: string): Promise<boolean>;
  remove(ip: string): Promise<void>;
  /** Removes every address this instance added. */
  close(): Promise<void>;
}

/** The interface the cluster IPs go on, as kube-ipvs0 for ipvs mode. */
export const DUMMY_INTERFACE = 'skiff-svc0';

/** `ip` failed: carries the command's stderr. */
export class IpCommandError extends Error {
  override readonly name = 'IpCommandError';
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
  ) {
    super(`ip ${args.join(' ')}: ${stderr.trim()}`);
  }
}

async function ip(args: string[]): Promise<void> {
  try {
    await exec('ip', args);
  } catch (err) {
    throw new IpCommandError(args, (err as { stderr?: string }).stderr ?? String(err));
  }
}

/**
 * Adds each cluster IP as a /32 on the dummy interface `skiff-svc0` (needs
 * root). Kernels without the dummy driver get the addresses on `lo` under
 * the label `lo:skiff` instead. Addresses that were already there are used
 * but never removed: they are not ours.
 */
export class InterfaceAddresses implements ServiceAddresses {
  private device?: Promise<{ dev: string; label?: string }>;
  private readonly added = new Set<string>();

  constructor(private readonly logger: Logger) {}

  async add(address: string): Promise<boolean> {
    if (this.added.has(address)) return true;
    try {
      const { dev, label } = await (this.device ??= this.ensureDevice());
      await ip(['addr', 'add', `${address}/32`, 'dev', dev, ...(label ? ['label', label] : [])]);
      this.added.add(address);
      return true;
    } catch (err) {
      if (err instanceof IpCommandError && /File exists/.test(err.stderr)) return true;
      this.logger.warn('cannot make the cluster IP local', { ip: address, error: err });
      return false;
    }
  }

  async remove(address: string): Promise<void> {
    if (!this.added.delete(address)) return;
    const { dev } = await this.device!;
    try {
      await ip(['addr', 'del', `${address}/32`, 'dev', dev]);
    } catch (err) {
      this.logger.warn('cannot remove the cluster IP', { ip: address, error: err });
    }
  }

  async close(): Promise<void> {
    for (const address of [...this.added]) await this.remove(address);
  }

  private async ensureDevice(): Promise<{ dev: string; label?: string }> {
    try {
      await ip(['link', 'add', DUMMY_INTERFACE, 'type', 'dummy']);
    } catch (err) {
      if (!(err instanceof IpCommandError && /File exists/.test(err.stderr))) {
        this.logger.info('no dummy interface; cluster IPs go on lo', { error: err });
        return { dev: 'lo', label: 'lo:skiff' };
      }
    }
    await ip(['link', 'set', DUMMY_INTERFACE, 'up']);
    return { dev: DUMMY_INTERFACE };
  }
}

/** Without root: cluster IPs cannot be made local; each is skipped with one warning. */
export class UnboundAddresses implements ServiceAddresses {
  private readonly warned = new Set<string>();

  constructor(private readonly logger: Logger) {}

  add(address: string): Promise<boolean> {
    if (address.startsWith('127.')) return Promise.resolve(true);
    if (!this.warned.has(address)) {
      this.warned.add(address);
      this.logger.warn('not root: cluster IP not served (node ports still are)', { ip: address });
    }
    return Promise.resolve(false);
  }

  remove(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
