/**
 * Conversions between instants and wall-clock time in an IANA time zone
 * through Intl, standing in for Go's time.Location. Wall times are carried as
 * "naive" epoch milliseconds: the UTC instant with the same calendar fields.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock time at `instant` in `timeZone`, as naive epoch ms (whole seconds). */
export function toWall(instant: number, timeZone: string): number {
  if (timeZone === 'UTC') return instant - (((instant % 1000) + 1000) % 1000);
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instant))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

/** The zone's UTC offset at `instant`, in ms. */
export function offsetAt(instant: number, timeZone: string): number {
  return toWall(instant, timeZone) - (instant - (((instant % 1000) + 1000) % 1000));
}

/**
 * The instant showing wall time `wall`. A wall time skipped by a DST jump
 * maps past the jump (as Go's time.Date normalises it); a repeated one maps
 * to its first occurrence.
 */
export function fromWall(wall: number, timeZone: string): number {
  if (timeZone === 'UTC') return wall;
  const before = offsetAt(wall - 86_400_000, timeZone);
  const after = offsetAt(wall + 86_400_000, timeZone);
  // Try the earlier offset first so that a repeated hour resolves to its first occurrence.
  for (const off of before >= after ? [before, after] : [after, before]) {
    const instant = wall - off;
    if (toWall(instant, timeZone) === wall) return instant;
  }
  return wall - before;
}

/** RFC 3339 with the zone's offset, as Go formats a time.Time in a location. */
export function formatRfc3339(instant: number, timeZone: string): string {
  const off = offsetAt(instant, timeZone);
  const wall = new Date(instant + off).toISOString().replace(/\.\d{3}Z$/, '');
  if (off === 0) return `${wall}Z`;
  const m = Math.abs(off) / 60_000;
  return `${wall}${off < 0 ? '-' : '+'}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}
