import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isIP } from 'node:net';
import type { Logger } from '../../machinery/logger.js';

/** One address host-local has handed out: its file names the IP and holds the attachment's container id and interface. */
export interface HostLocalAllocation {
  ip: string;
  containerId: string;
  /** Absent in files written by host-local before v0.8.6 (the id alone). */
  ifName?: string;
  /** The file's mtime (ms since the epoch): when the address was reserved. */
  reservedAt: number;
}

/**
 * The allocations in one host-local network directory (`<dataDir>/<network
 * name>`): a file per address, named by it, holding `<container id>\r\n<ifname>`;
 * `lock` and `last_reserved_ip.*` are host-local's own. A missing directory
 * (no pod ever got an address) has none.
 */
export function hostLocalAllocations(networkDir: string): HostLocalAllocation[] {
  let names: string[];
  try {
    names = readdirSync(networkDir);
  } catch {
    return [];
  }
  const out: HostLocalAllocation[] = [];
  for (const name of names) {
    if (!isIP(name)) continue;
    try {
      const path = join(networkDir, name);
      const [containerId, ifName] = readFileSync(path, 'utf8').split(/\r?\n/).map((s) => s.trim());
      if (!containerId) continue;
      out.push({ ip: name, containerId, ...(ifName ? { ifName } : {}), reservedAt: statSync(path).mtimeMs });
    } catch {
      // released meanwhile
    }
  }
  return out;
}

export interface PodIPGCOptions {
  /** host-local's directory for the pod network (`<ipam dataDir>/<network name>`). */
  networkDir: string;
  /** Every sandbox id the runtime holds, whatever its state (listed after the allocations are read). */
  knownSandboxes(): Promise<Set<string>>;
  /**
   * When the oldest sandbox creation still in flight started (ms since the
   * epoch), if any: the runtime reserves the address before it lists the
   * sandbox, so an allocation made since is not judged.
   */
  creatingSince(): number | undefined;
  /** CNI DEL of the attachment (releases the address and whatever else plugins hold for it). */
  release(a: HostLocalAllocation): Promise<void>;
  /** Allocations younger than this are left alone (default 60 s). */
  minAgeMs?: number;
  now?: () => number;
  logger: Logger;
}

/**
 * Releases pod IPs whose sandbox the runtime no longer knows. The runtime
 * releases a pod's address when its sandbox is stopped, but an address
 * reserved by a CNI ADD that never became a sandbox (the runtime killed
 * mid-RunPodSandbox) or a sandbox lost with its metadata would stay taken
 * for good, and host-local's range runs dry. Runs in the kubelet's
 * housekeeping after orphaned sandboxes are removed.
 */
export class PodIPGC {
  constructor(private readonly o: PodIPGCOptions) {}

  /** Releases the leaked allocations; returns those it released. */
  async releaseLeaked(): Promise<HostLocalAllocation[]> {
    const now = (this.o.now ?? Date.now)();
    // the cut-off is fixed before anything is read: an allocation made later belongs to a creation this pass cannot see
    const cutoff = Math.min(now - (this.o.minAgeMs ?? 60_000), this.o.creatingSince() ?? Infinity);
    const allocations = hostLocalAllocations(this.o.networkDir).filter((a) => a.reservedAt < cutoff);
    if (allocations.length === 0) return [];
    const known = await this.o.knownSandboxes();
    const released: HostLocalAllocation[] = [];
    for (const a of allocations) {
      if (known.has(a.containerId)) continue;
      try {
        await this.o.release(a);
        released.push(a);
        this.o.logger.info('released the IP of a pod sandbox that no longer exists', { ip: a.ip, sandbox: a.containerId });
      } catch (err) {
        this.o.logger.warn('releasing a leaked pod IP failed', { ip: a.ip, sandbox: a.containerId, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return released;
  }
}
