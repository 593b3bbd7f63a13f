import { logSyncError } from '../client/controller/sync-error.js';
import { realClock } from '../base/clock.js';
import type { ControllerContext } from './controller-descriptor.js';

/**
 * Runs `pass` every `periodMs` until the context's signal aborts, as upstream's
 * `wait.Until`: a failing pass is logged the way every failed sync is (with
 * its stack, keyed by `what`) and the loop goes on.
 */
export async function everyPeriod(ctx: Pick<ControllerContext, 'signal' | 'logger' | 'clock'>, what: string, periodMs: number, pass: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const clock = ctx.clock ?? realClock;
  while (!ctx.signal.aborted) {
    try {
      await pass(ctx.signal);
    } catch (err) {
      if (!ctx.signal.aborted) logSyncError(ctx.logger, what, err);
    }
    await clock.sleep(periodMs, ctx.signal);
  }
}
