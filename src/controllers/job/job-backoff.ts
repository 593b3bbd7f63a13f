/** Upstream's DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
export const JOB_BACKOFF_BASE_MS = 10_000;
export const JOB_BACKOFF_MAX_MS = 6 * 60_000;

/** The delay before replacing a pod after `failures` consecutive failures: 10 s doubling, capped at 6 min. */
export function jobBackoffDelay(failures: number, baseMs = JOB_BACKOFF_BASE_MS, maxMs = JOB_BACKOFF_MAX_MS): number {
  if (failures <= 0) return 0;
  let delay = baseMs;
  for (let i = 1; i < failures && delay < maxMs; i++) delay *= 2;
  return Math.min(delay, maxMs);
}

interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureTime: number;
}

/**
 * Per-Job failure history since the last success, kept in memory as
 * upstream's backoffRecordStore is: it decides how long to wait before
 * creating replacement pods.
 */
export class JobBackoffStore {
  private readonly records = new Map<string, BackoffRecord>();

  /** Folds newly counted pods in: successes reset the streak, failures extend it. */
  record(key: string, outcome: { failed: number; succeeded: number; lastFailureTime?: number }): void {
    if (outcome.succeeded > 0 && outcome.failed === 0) {
      this.records.delete(key);
      return;
    }
    if (outcome.failed === 0) return;
    const r = this.records.get(key) ?? { failuresAfterLastSuccess: 0, lastFailureTime: 0 };
    r.failuresAfterLastSuccess = (outcome.succeeded > 0 ? 0 : r.failuresAfterLastSuccess) + outcome.failed;
    r.lastFailureTime = Math.max(r.lastFailureTime, outcome.lastFailureTime ?? 0);
    this.records.set(key, r);
  }

  /** Milliseconds left before new pods may be created (0: now). */
  remaining(key: string, now: number): number {
    const r = this.records.get(key);
    if (!r) return 0;
    return Math.max(0, r.lastFailureTime + jobBackoffDelay(r.failuresAfterLastSuccess) - now);
  }

  forget(key: string): void {
    this.records.delete(key);
  }
}
