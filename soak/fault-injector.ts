import type { DiskFullObservation } from './disk-probe.js';
import type { Rng } from './rng.js';
import type { ScratchDisk } from './scratch-disk.js';
import { sleep } from './sleep.js';
import type { ComponentKind, SupervisedProcess } from './supervised-process.js';

export type FaultKind = 'kill' | 'pause' | 'disk-full';

export interface FaultRecord {
  kind: FaultKind;
  target: string;
  targetKind: ComponentKind;
  /** From the fault to the component serving again (ms); undefined: it did not recover in time. */
  recoveryMs?: number;
  /** disk-full: what writes saw while the disk was full, and exits of the component meanwhile. */
  disk?: DiskFullObservation & { exits: number };
}

/** A component whose data lives on a scratch disk the injector may fill. */
export interface DiskTarget {
  target: SupervisedProcess;
  disk: ScratchDisk;
}

/** What the disk-full fault does while the disk is full (writes, /readyz) and once it recovered (clean-up). */
export interface DiskFullHooks {
  whileFull(target: SupervisedProcess, until: number): Promise<DiskFullObservation>;
  afterwards(): Promise<void>;
}


/**
 * One fault at a time, at random intervals: `kill -9` a random component
 * and start it again after a moment, or SIGSTOP it for a few seconds and
 * SIGCONT it, or (when there are disk targets) fill the file system holding
 * a component's data for a few seconds and free it again; then wait for it
 * to serve again (its recovery time). With one fault at a time at most one
 * etcd member is ever down.
 */
export class FaultInjector {
  readonly faults: FaultRecord[] = [];

  constructor(
    private readonly rng: Rng,
    private readonly targets: SupervisedProcess[],
    private readonly opts: { minGapMs: number; maxGapMs: number; recoveryTimeoutMs: number; onUnrecovered(f: FaultRecord): void; disks?: DiskTarget[]; diskHooks?: DiskFullHooks; onDiskFull?(f: FaultRecord): void },
  ) {}

  private chooseKind(): FaultKind {
    const r = this.rng.next();
    if (!this.opts.disks?.length) return r < 0.7 ? 'kill' : 'pause';
    return r < 0.6 ? 'kill' : r < 0.85 ? 'pause' : 'disk-full';
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await sleep(this.rng.int(this.opts.minGapMs, this.opts.maxGapMs), signal);
      if (signal.aborted) return;
      const kind = this.chooseKind();
      const diskTarget = kind === 'disk-full' ? this.rng.pick(this.opts.disks!) : undefined;
      const target = diskTarget?.target ?? this.rng.pick(this.targets);
      const record: FaultRecord = { kind, target: target.name, targetKind: target.kind };
      this.faults.push(record);
      const started = Date.now();
      const exitsBefore = target.faultExits;
      if (kind === 'kill') {
        await target.kill();
        // the restart waits a moment, and not on `signal`: a killed component is always started again
        await sleep(this.rng.int(200, 3000));
        target.start();
      } else if (diskTarget) {
        await this.fillDisk(diskTarget, record);
      } else {
        target.pause();
        await sleep(this.rng.int(1000, 8000));
        target.resume();
      }
      // recovery is not cut short by the end of the fault phase: its figure would be wrong
      const recovered = await target.waitReady(this.opts.recoveryTimeoutMs);
      target.exitsExpected = false;
      if (recovered) record.recoveryMs = Date.now() - started;
      else this.opts.onUnrecovered(record);
      if (record.disk) {
        record.disk.exits = target.faultExits - exitsBefore;
        this.opts.onDiskFull?.(record);
        await this.opts.diskHooks?.afterwards().catch(() => undefined);
      }
    }
  }

  /** Fills the target's file system for 3–8 s (writes probing it meanwhile), then frees it. */
  private async fillDisk({ target, disk }: DiskTarget, record: FaultRecord): Promise<void> {
    const until = Date.now() + this.rng.int(3000, 8000);
    // a component may die of a full disk (etcd does): restarted as always, but counted as this fault's doing
    target.exitsExpected = true;
    try {
      disk.fill();
      const seen = (await this.opts.diskHooks?.whileFull(target, until).catch(() => undefined)) ?? { acknowledged: 0, refusedForSpace: 0, other: [] };
      await sleep(until - Date.now());
      record.disk = { ...seen, exits: 0 };
    } finally {
      disk.free();
    }
  }

  /** Counts by "kind target-kind", e.g. "kill apiserver". */
  counts(): Map<string, number> {
    const out = new Map<string, number>();
    for (const f of this.faults) out.set(`${f.kind} ${f.targetKind}`, (out.get(`${f.kind} ${f.targetKind}`) ?? 0) + 1);
    return new Map([...out].sort());
  }
}
