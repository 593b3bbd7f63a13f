import { realClock, type Clock } from '../../base/clock.js';
/**
 * CrashLoopBackOff timing as upstream does it: the first restart is
 * immediate, later ones wait 10 s doubling to 5 min after the container
 * ended, and a container that ran for 10 minutes starts over.
 */
export class RestartBackoff {
  /** The current back-off in ms (0 before the first restart). */
  current = 0;

  constructor(
    private readonly initialMs = 10_000,
    private readonly maxMs = 300_000,
    private readonly resetAfterMs = 600_000,
    private readonly clock: Clock = realClock,
  ) {}

  /**
   * How long to wait before restarting a container that ended at `finishedAt`
   * after running `ranForMs`; 0 means restart now (and advances the back-off).
   */
  next(finishedAt: Date, ranForMs: number): number {
    if (ranForMs >= this.resetAfterMs) this.current = 0;
    if (this.current === 0) {
      this.current = this.initialMs;
      this.restartAt = undefined;
      return 0;
    }
    this.restartAt ??= finishedAt.getTime() + this.current;
    const wait = this.restartAt - this.clock.now();
    if (wait > 0) return wait;
    this.restartAt = undefined;
    this.current = Math.min(this.maxMs, this.current * 2);
    return 0;
  }

  private restartAt?: number;
}
