import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { FlowFilter } from './stale-flows.js';

const exec = promisify(execFile);

/** Deletes conntrack entries; a mode's only use of the conntrack table. */
export interface Conntrack {
  deleteUdp(filter: FlowFilter): Promise<void>;
}

/** The `conntrack` command (conntrack-tools). */
export class ExecConntrack implements Conntrack {
  async deleteUdp(f: FlowFilter): Promise<void> {
    const args = ['-D', '-p', 'udp'];
    if (f.origDst) args.push('--orig-dst', f.origDst);
    if (f.dport) args.push('--dport', String(f.dport));
    if (f.dstNat) args.push('--dst-nat', f.dstNat);
    try {
      await exec('conntrack', args);
    } catch (err) {
      // conntrack exits 1 when nothing matched, which is the usual case
      const stderr = (err as { stderr?: string }).stderr ?? '';
      if (/0 flow entries have been deleted/.test(stderr)) return;
      throw new Error(`conntrack ${args.join(' ')}: ${stderr.trim() || String(err)}`);
    }
  }
}
