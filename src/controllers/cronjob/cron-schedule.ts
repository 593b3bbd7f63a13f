import { fromWall, toWall } from './wall-clock.js';

/** A schedule that cannot be parsed; `message` matches robfig/cron's wording where it can. */
export class CronParseError extends Error {
  override readonly name = 'CronParseError';
}

/** When a schedule next fires. */
export interface Schedule {
  /** The first activation strictly after `after` (epoch ms), or undefined if none within 5 years. */
  next(after: number): number | undefined;
}

interface FieldSpec {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MONTH_NAMES = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAY_NAMES = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: readonly FieldSpec[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTH_NAMES },
  { min: 0, max: 6, names: DAY_NAMES },
];
const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const DURATION_UNITS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const SEARCH_LIMIT_MS = 5 * 366 * DAY;

/** The values one field allows, plus robfig's "star" flag (the field began with `*` or `?` and had no step > 1). */
interface Field {
  values: ReadonlySet<number>;
  star: boolean;
}

function parseNumber(text: string, spec: FieldSpec): number {
  const named = spec.names?.[text.toLowerCase() as keyof typeof spec.names];
  if (named !== undefined) return named;
  if (!/^[0-9]+$/.test(text)) throw new CronParseError(`failed to parse int from ${text}`);
  return Number(text);
}

function parseField(text: string, spec: FieldSpec): Field {
  const values = new Set<number>();
  let star = false;
  for (const expr of text.split(',')) {
    const [range, stepText, extra] = expr.split('/');
    if (extra !== undefined) throw new CronParseError(`too many slashes: ${expr}`);
    const bounds = range.split('-');
    let start: number;
    let end: number;
    let exprStar = false;
    if (bounds[0] === '*' || bounds[0] === '?') {
      if (bounds.length > 1) throw new CronParseError(`too many hyphens: ${expr}`);
      [start, end, exprStar] = [spec.min, spec.max, true];
    } else {
      if (bounds.length > 2) throw new CronParseError(`too many hyphens: ${expr}`);
      start = parseNumber(bounds[0], spec);
      end = bounds.length === 2 ? parseNumber(bounds[1], spec) : start;
    }
    let step = 1;
    if (stepText !== undefined) {
      step = parseNumber(stepText, { min: 0, max: 0 });
      if (step === 0) throw new CronParseError(`step of range should be a positive number: ${expr}`);
      if (bounds.length === 1 && !exprStar) end = spec.max; // "N/step" means "N-max/step"
      if (step > 1) exprStar = false;
    }
    if (start < spec.min) throw new CronParseError(`beginning of range (${start}) below minimum (${spec.min}): ${expr}`);
    if (end > spec.max) throw new CronParseError(`end of range (${end}) above maximum (${spec.max}): ${expr}`);
    if (start > end) throw new CronParseError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
    for (let v = start; v <= end; v += step) values.add(v);
    star ||= exprStar;
  }
  return { values, star };
}

/** Five fields evaluated on wall-clock time in one zone, as robfig/cron's SpecSchedule. */
class FieldSchedule implements Schedule {
  constructor(
    private readonly minute: Field,
    private readonly hour: Field,
    private readonly dom: Field,
    private readonly month: Field,
    private readonly dow: Field,
    private readonly timeZone: string,
  ) {}

  next(after: number): number | undefined {
    // Start at the next whole minute of wall time and skip ahead field by field.
    let wall = toWall(after, this.timeZone);
    wall = wall - (wall % MINUTE) + MINUTE;
    const limit = wall + SEARCH_LIMIT_MS;
    while (wall < limit) {
      const d = new Date(wall);
      if (!this.month.values.has(d.getUTCMonth() + 1)) {
        wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      } else if (!this.dayMatches(d)) {
        wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
      } else if (!this.hour.values.has(d.getUTCHours())) {
        wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
      } else if (!this.minute.values.has(d.getUTCMinutes())) {
        wall += MINUTE;
      } else {
        const instant = fromWall(wall, this.timeZone);
        if (instant > after) return instant;
        wall += MINUTE; // a repeated wall time (DST fall-back) already passed
      }
    }
    return undefined;
  }

  /** Day-of-month and day-of-week are ANDed if either is a star, ORed otherwise (cron's rule). */
  private dayMatches(d: Date): boolean {
    const dom = this.dom.values.has(d.getUTCDate());
    const dow = this.dow.values.has(d.getUTCDay());
    return this.dom.star || this.dow.star ? dom && dow : dom || dow;
  }
}

/** `@every <duration>`: a fixed delay, rounded down to whole seconds. */
class EverySchedule implements Schedule {
  constructor(private readonly delayMs: number) {}

  next(after: number): number {
    return after - (((after % 1000) + 1000) % 1000) + this.delayMs;
  }
}

function parseEvery(text: string): Schedule {
  const re = /([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * DURATION_UNITS[m[2]];
    consumed = re.lastIndex;
  }
  if (text.length === 0 || consumed !== text.length) throw new CronParseError(`failed to parse duration @every ${text}`);
  // robfig rounds delays under a second up to one second.
  return new EverySchedule(Math.max(1000, Math.floor(total / 1000) * 1000));
}

/**
 * Parses a standard cron schedule (5 fields, names, ranges, steps, `?`, the
 * @yearly…@hourly descriptors, `@every`, an optional `TZ=`/`CRON_TZ=` prefix)
 * evaluated in `timeZone` (IANA name; default UTC).
 */
export function parseCronSchedule(schedule: string, timeZone = 'UTC'): Schedule {
  let spec = schedule.trim();
  const tz = /^(?:CRON_)?TZ=(\S+)\s*/.exec(spec);
  if (tz) {
    timeZone = tz[1];
    spec = spec.slice(tz[0].length);
  }
  if (timeZone !== 'UTC') {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone });
    } catch {
      throw new CronParseError(`unknown time zone ${timeZone}`);
    }
  }
  if (spec.length === 0) throw new CronParseError('empty spec string');
  if (spec.startsWith('@every ')) return parseEvery(spec.slice('@every '.length).trim());
  if (spec.startsWith('@')) {
    const expanded = DESCRIPTORS[spec];
    if (!expanded) throw new CronParseError(`unrecognized descriptor: ${spec}`);
    spec = expanded;
  }
  const fields = spec.split(/\s+/);
  if (fields.length !== 5) throw new CronParseError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, dom, month, dow] = fields.map((f, i) => parseField(f, FIELDS[i]));
  return new FieldSchedule(minute, hour, dom, month, dow, timeZone);
}
