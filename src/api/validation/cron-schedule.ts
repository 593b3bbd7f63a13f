/**
 * Checks a cron schedule the way robfig/cron's ParseStandard (used by
 * upstream CronJob validation) does, returning its error text or undefined.
 */

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];
const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

class CronError extends Error {}

function parseInt10(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseValue(expr: string, b: Bounds): number {
  const named = b.names?.[expr.toLowerCase()];
  return named !== undefined ? named : parseInt10(expr);
}

function checkRange(expr: string, b: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  const singleDigit = lowAndHigh.length === 1;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = b.min;
    end = b.max;
  } else {
    start = parseValue(lowAndHigh[0], b);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseValue(lowAndHigh[1], b);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  if (rangeAndStep.length === 2) {
    const step = parseInt10(rangeAndStep[1]);
    if (singleDigit && lowAndHigh[0] !== '*' && lowAndHigh[0] !== '?') end = b.max;
    if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
  } else if (rangeAndStep.length > 2) {
    throw new CronError(`too many slashes: ${expr}`);
  }
  if (start < b.min) throw new CronError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new CronError(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
}

function checkEvery(spec: string): void {
  const d = spec.slice('@every '.length).trim();
  if (!/^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/.test(d)) throw new CronError(`failed to parse duration @every ${d}: time: invalid duration ${JSON.stringify(d)}`);
}

export function cronScheduleError(schedule: string): string | undefined {
  try {
    let spec = schedule.trim();
    if (spec.length === 0) throw new CronError('empty spec string');
    if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
      const i = spec.indexOf(' ');
      const tz = spec.slice(spec.indexOf('=') + 1, i < 0 ? undefined : i);
      if (!isKnownTimeZone(tz)) throw new CronError(`provided bad location ${tz}: unknown time zone ${tz}`);
      spec = i < 0 ? '' : spec.slice(i).trim();
    }
    if (spec.startsWith('@')) {
      if (spec.startsWith('@every ')) checkEvery(spec);
      else if (!DESCRIPTORS.includes(spec)) throw new CronError(`unrecognized descriptor: ${spec}`);
      return undefined;
    }
    const fields = spec.split(/\s+/).filter((f) => f !== '');
    if (fields.length !== 5) throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
    fields.forEach((field, i) => field.split(',').forEach((expr) => checkRange(expr, FIELDS[i])));
    return undefined;
  } catch (e) {
    if (e instanceof CronError) return e.message;
    throw e;
  }
}

/** IANA zone lookup through the runtime's ICU data, standing in for Go's time.LoadLocation. */
export function isKnownTimeZone(tz: string): boolean {
  if (tz === 'UTC' || tz === 'Local') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
