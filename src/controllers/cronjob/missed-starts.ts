import type { Schedule } from './cron-schedule.js';

/** Upstream's threshold for the TooManyMissedTimes warning. */
export const MAX_MISSED_STARTS = 100;
/** Past this many steps the count stops being exact: only "more than 100" matters. */
const COUNT_STEPS = 1000;

export interface MissedStarts {
  /** The latest start time in (earliest, now], if any: the only one that is run. */
  latest?: number;
  /** Missed starts (exact up to MAX_MISSED_STARTS, then a lower bound). */
  count: number;
  /** More than MAX_MISSED_STARTS were missed: upstream warns with TooManyMissedTimes. */
  tooMany: boolean;
}

/**
 * The start times missed since `earliest` (the last schedule time, or the
 * CronJob's creation), not looking further back than the starting deadline.
 */
export function missedStarts(schedule: Schedule, earliest: number, now: number, startingDeadlineSeconds?: number): MissedStarts {
  if (startingDeadlineSeconds !== undefined) earliest = Math.max(earliest, now - startingDeadlineSeconds * 1000);
  let latest: number | undefined;
  let count = 0;
  for (let t = schedule.next(earliest); t !== undefined && t <= now; t = schedule.next(t)) {
    latest = t;
    if (++count >= COUNT_STEPS) {
      // Far behind: find the latest start from just before now instead of walking every one.
      latest = latestBefore(schedule, t, now);
      break;
    }
  }
  return { latest, count, tooMany: count > MAX_MISSED_STARTS };
}

/** The latest start in (from, now], searching back from `now` in widening windows. */
function latestBefore(schedule: Schedule, from: number, now: number): number {
  for (let window = 3_600_000; ; window *= 4) {
    const start = Math.max(from, now - window);
    let latest: number | undefined;
    for (let t = schedule.next(start); t !== undefined && t <= now; t = schedule.next(t)) latest = t;
    if (latest !== undefined || start === from) return latest ?? from;
  }
}
