import { setOomScoreAdj } from '../base/oom-score.js';
import type { Logger } from '../machinery/logger.js';
import { UsageError } from './flags.js';

/** `--oom-score-adj`: applied to this process; not being allowed to (not root) is a warning, not a failure. */
export function applyOomScoreAdj(flag: string, logger: Logger): void {
  const value = Number(flag);
  if (!Number.isInteger(value) || value < -1000 || value > 1000) throw new UsageError(`invalid --oom-score-adj ${JSON.stringify(flag)}: a whole number in [-1000, 1000]`);
  const result = setOomScoreAdj(value);
  if (!result.ok) logger.warn('cannot set oom_score_adj', { value, reason: result.reason });
}
