import { loadavg } from 'node:os';
import type { FaultInjector, FaultRecord } from './fault-injector.js';
import type { Violations } from './invariant-checks.js';
import type { SupervisedProcess } from './supervised-process.js';
import type { WatchAuditor } from './watch-auditor.js';
import type { WriteLedger } from './write-ledger.js';

export interface SoakFigures {
  seed: number;
  storage: string;
  minutes: number;
  loadAtStart: number[];
  /** Why the disk-full fault did not run; undefined: it did. */
  diskFullOff?: string;
  ledger: WriteLedger;
  watchers: WatchAuditor[];
  injector: FaultInjector;
  components: SupervisedProcess[];
  convergenceMs?: number;
  violations: Violations;
}

const secs = (ms: number) => (ms / 1000).toFixed(1);
const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');

/** The soak's figures as plain text, one fact a line. */
export function formatReport(f: SoakFigures): string {
  const lines: string[] = [];
  lines.push(`soak: seed ${f.seed}, storage ${f.storage}, ${f.minutes} min of faults, ${new Date().toISOString()}`);
  lines.push(`load average: ${load(f.loadAtStart)} at the start, ${load(loadavg())} at the end`);
  lines.push(`writes acknowledged: ${f.ledger.acknowledged} (refused ${f.ledger.refused}, outcome unknown ${f.ledger.uncertain}); objects re-read at the end: ${f.ledger.objects}`);
  for (const w of f.watchers) lines.push(`watcher ${w.name}: ${w.events} events, ${w.reconnects} reconnects, ${w.relists} relists after 410`);
  lines.push(`faults injected: ${f.injector.faults.length}`);
  for (const [kind, n] of f.injector.counts()) {
    const times = f.injector.faults.filter((x) => `${x.kind} ${x.targetKind}` === kind && x.recoveryMs !== undefined).map((x) => x.recoveryMs!).sort((a, b) => a - b);
    const p50 = times[Math.floor((times.length - 1) / 2)];
    const stats = times.length ? `recovery p50 ${secs(p50!)} s, max ${secs(times.at(-1)!)} s` : 'no recovery measured';
    lines.push(`  ${kind.padEnd(26)} ${String(n).padStart(3)}   ${stats}`);
  }
  const disk = f.injector.faults.filter((x) => x.disk);
  if (f.diskFullOff) lines.push(`disk-full faults: disabled (${f.diskFullOff})`);
  else {
    const sum = (pick: (d: NonNullable<FaultRecord['disk']>) => number) => disk.reduce((n, x) => n + pick(x.disk!), 0);
    lines.push(`disk-full faults: ${disk.length}; while full, writes acknowledged ${sum((d) => d.acknowledged)}, refused for lack of space ${sum((d) => d.refusedForSpace)} (in ${disk.filter((x) => x.disk!.refusedForSpace > 0).length} faults), other answers ${sum((d) => d.other.length)}; /readyz false ${disk.filter((x) => x.disk!.notReady).length} times; component exits ${sum((d) => d.exits)}; all refusals for space: ${f.ledger.refusedForSpace}`);
  }
  const selfExits = f.components.filter((c) => c.selfExits > 0);
  lines.push(`exits nobody caused (restarted): ${selfExits.length ? selfExits.map((c) => `${c.name} ${c.selfExits}`).join(', ') : 'none'}`);
  lines.push(`convergence after the faults stopped: ${f.convergenceMs === undefined ? 'NOT REACHED' : `${secs(f.convergenceMs)} s`}`);
  lines.push(`invariant violations: ${f.violations.count}`);
  for (const v of f.violations.list) lines.push(`  ${v.at.toISOString()} ${v.invariant}: ${v.message}`);
  return lines.join('\n');
}
