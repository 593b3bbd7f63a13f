import type { Probe } from 'kubernetes-types/core/v1.js';
import { realClock, type Clock } from '../../base/clock.js';
import { runProbe, type ProbeResult, type ProbeTarget } from './run-probe.js';

export type ProbeType = 'liveness' | 'readiness' | 'startup';

export interface ProbeWorkerOptions {
  type: ProbeType;
  probe: Probe;
  target: ProbeTarget;
  /** When the container started; initialDelaySeconds counts from here. */
  startedAt: Date;
  /** Called when the probe's verdict flips (after success/failure thresholds). */
  onChange(ok: boolean, result: ProbeResult): void;
  /** Startup gating: liveness and readiness wait until this returns true. */
  started?: () => boolean;
  run?: typeof runProbe;
  /** Time and waits (default the real clock). */
  clock?: Clock;
}

/**
 * Probes one container on its period and turns raw results into a verdict
 * with the success/failure thresholds. Readiness starts false and the others
 * true, as upstream's initial results do.
 */
export class ProbeWorker {
  private verdict: boolean;
  private successes = 0;
  private failures = 0;

  constructor(private readonly opts: ProbeWorkerOptions) {
    this.verdict = opts.type !== 'readiness';
    if (opts.type === 'startup') this.verdict = false;
  }

  get ok(): boolean {
    return this.verdict;
  }

  async run(signal: AbortSignal): Promise<void> {
    const p = this.opts.probe;
    const clock = this.opts.clock ?? realClock;
    const delay = (p.initialDelaySeconds ?? 0) * 1000 - (clock.now() - this.opts.startedAt.getTime());
    if (delay > 0) await clock.sleep(delay, signal);
    const period = (p.periodSeconds ?? 10) * 1000;
    while (!signal.aborted) {
      if (this.opts.type === 'startup' || (this.opts.started?.() ?? true)) {
        await this.probeOnce();
        // a startup probe stops probing once it has succeeded
        if (this.opts.type === 'startup' && this.verdict) return;
      }
      await clock.sleep(period, signal);
    }
  }

  async probeOnce(): Promise<void> {
    const p = this.opts.probe;
    const result = await (this.opts.run ?? runProbe)(p, this.opts.target);
    if (result.ok) {
      this.failures = 0;
      this.successes++;
      const need = this.opts.type === 'readiness' ? (p.successThreshold ?? 1) : 1;
      if (!this.verdict && this.successes >= need) this.flip(true, result);
    } else {
      this.successes = 0;
      this.failures++;
      if (this.failures >= (p.failureThreshold ?? 3) && (this.verdict || this.opts.type === 'startup')) {
        this.flip(false, result);
        this.failures = 0;
      }
    }
  }

  private flip(ok: boolean, result: ProbeResult): void {
    this.verdict = ok;
    this.opts.onChange(ok, result);
  }
}
