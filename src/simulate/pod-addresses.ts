import { podAddress } from './simulated-node.js';

const FIRST_HOST = 2;
const LAST_HOST = 254;

/** Pod IPs from each simulated node's /24, as a CNI's host-local IPAM hands them out: lowest free first, freed when the pod stops. */
export class PodAddresses {
  /** Per node index: pod uid → host part. */
  private readonly byNode = new Map<number, Map<string, number>>();

  private hosts(index: number): Map<string, number> {
    let m = this.byNode.get(index);
    if (!m) this.byNode.set(index, (m = new Map()));
    return m;
  }

  /** The pod's address, assigned now if it has none. */
  assign(index: number, uid: string): string {
    const hosts = this.hosts(index);
    const had = hosts.get(uid);
    if (had !== undefined) return podAddress(index, had);
    const used = new Set(hosts.values());
    for (let h = FIRST_HOST; h <= LAST_HOST; h++) {
      if (used.has(h)) continue;
      hosts.set(uid, h);
      return podAddress(index, h);
    }
    throw new RangeError(`simulated node ${index} has no pod address left (${LAST_HOST - FIRST_HOST + 1} in use)`);
  }

  /** Records an address a pod already reports (after a restart of the simulator). */
  claim(index: number, uid: string, ip: string): void {
    const host = Number(ip.split('.')[3]);
    if (ip === podAddress(index, host)) this.hosts(index).set(uid, host);
  }

  release(index: number, uid: string): void {
    this.byNode.get(index)?.delete(uid);
  }
}
