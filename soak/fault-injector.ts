import type { Rng } from './rng.js';
import { sleep } from './sleep.js';
import type { ComponentKind, SupervisedProcess } from './supervised-process.js';

export type FaultKind = 'kill' | 'pause';

export interface FaultRecord {
  kind: FaultKind;
  target: string;
  targetKind: ComponentKind;
  /** From the fault to the component serving again (ms); undefined: it did not recover in time. */
  recoveryMs?: number;
}


/**
 * One fault at a time, at random intervals: `kill -9` a random component
 * and start it again after a moment, or SIGSTOP it for a few seconds and
 * SIGCONT it; then wait for it to serve again (its recovery time). With one
 * fault at a time at most one etcd member is ever down.
 */
export class FaultInjector {
  readonly faults: FaultRecord[] = [];

  constructor(
    private readonly rng: Rng,
    private readonly targets: SupervisedProcess[],
    private readonly opts: { minGapMs: number; maxGapMs: number; recoveryTimeoutMs: number; onUnrecovered(f: FaultRecord): void },
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await sleep(this.rng.int(this.opts.minGapMs, this.opts.maxGapMs), signal);
      if (signal.aborted) return;
      const target = this.rng.pick(this.targets);
      const kind: FaultKind = this.rng.chance(0.7) ? 'kill' : 'pause';
      const record: FaultRecord = { kind, target: target.name, targetKind: target.kind };
      this.faults.push(record);
      const started = Date.now();
      if (kind === 'kill') {
        await target.kill();
        // the restart waits a moment, and not on `signal`: a killed component is always started again
        await sleep(this.rng.int(200, 3000));
        target.start();
      } else {
        target.pause();
        await sleep(this.rng.int(1000, 8000));
        target.resume();
      }
      // recovery is not cut short by the end of the fault phase: its figure would be wrong
      if (await target.waitReady(this.opts.recoveryTimeoutMs)) record.recoveryMs = Date.now() - started;
      else this.opts.onUnrecovered(record);
    }
  }

  /** Counts by "kind target-kind", e.g. "kill apiserver". */
  counts(): Map<string, number> {
    const out = new Map<string, number>();
    for (const f of this.faults) out.set(`${f.kind} ${f.targetKind}`, (out.get(`${f.kind} ${f.targetKind}`) ?? 0) + 1);
    return new Map([...out].sort());
  }
}
