/**
 * Human-readable durations and ages, matching upstream's
 * `duration.HumanDuration` and the printers' `translateTimestampSince`.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Go's zero `time.Time`, which is how an unset timestamp reads upstream. */
const GO_ZERO_TIME_MS = Date.parse('0001-01-01T00:00:00Z');

/** A succinct duration with ~2-3 significant figures: `5s`, `3m12s`, `2d3h`, `3y15d`. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  // Up to two seconds in the future is clock skew, read as "now".
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 2 * 60) return `${seconds}s`;

  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 3 * 60) return `${minutes}m`;

  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;

  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;

  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** Milliseconds since the epoch, or undefined for an unset/zero/unparseable timestamp. */
export function parseTimestamp(ts: unknown): number | undefined {
  if (typeof ts !== 'string' || ts === '') return undefined;
  const ms = Date.parse(ts);
  if (Number.isNaN(ms) || ms === GO_ZERO_TIME_MS) return undefined;
  return ms;
}

/** Elapsed time since `ts`, or `<unknown>` when it is unset. */
export function translateTimestampSince(ts: unknown, now: Date): string {
  const ms = parseTimestamp(ts);
  return ms === undefined ? '<unknown>' : humanDuration(now.getTime() - ms);
}
