/** A Go duration string that does not parse (`time.ParseDuration`). */
export class InvalidDurationError extends Error {
  override readonly name = 'InvalidDurationError';
  constructor(readonly input: string) {
    super(`time: invalid duration "${input}"`);
  }
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go duration (`40s`, `1m30s`, `500ms`, `0`) into milliseconds, as the components' flags take them. */
export function parseDuration(input: string): number {
  const s = input.trim();
  if (s === '0') return 0;
  const sign = s.startsWith('-') ? -1 : 1;
  const body = s.replace(/^[-+]/, '');
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let ms = 0;
  let at = 0;
  while (at < body.length) {
    part.lastIndex = at;
    const m = part.exec(body);
    if (!m) throw new InvalidDurationError(input);
    ms += Number(m[1]) * UNIT_MS[m[2]];
    at = part.lastIndex;
  }
  if (body.length === 0) throw new InvalidDurationError(input);
  return sign * ms;
}
