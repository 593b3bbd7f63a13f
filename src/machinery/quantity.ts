/**
 * Kubernetes resource quantities (resource.Quantity): `100m`, `1Gi`, `1e3`,
 * `0.5`. A quantity is held exactly as a count of nano-units; parsing rounds
 * up to 1n like upstream, and toString() canonicalizes as upstream does
 * (`1000m` → `1`, `1024Mi` → `1Gi`, `1.5Gi` → `1536Mi`, `0.5` → `500m`).
 */

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
const MESSAGES = {
  format: `quantities must match the regular expression '${SPLIT_RE}'`,
  numeric: "unable to parse quantity's numeric value",
  suffix: "unable to parse quantity's suffix",
} as const;

export class QuantityParseError extends Error {
  override readonly name = 'QuantityParseError';
  constructor(readonly reason: keyof typeof MESSAGES) {
    super(MESSAGES[reason]);
  }
}

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

const NANO = 1_000_000_000n;
const INT64_MAX = 2n ** 63n - 1n;
/** Decimal exponents beyond this are refused rather than expanded into enormous integers. */
const MAX_EXPONENT = 10_000;

function ceilDiv(n: bigint, d: bigint): bigint {
  // Rounds away from zero, as upstream's Value/MilliValue do.
  const q = n / d;
  if (n % d === 0n) return q;
  return n > 0n ? q + 1n : q - 1n;
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

export class Quantity {
  private constructor(
    /** The exact amount in units of 10^-9. */
    readonly nanos: bigint,
    readonly format: QuantityFormat,
    /** The text as written, kept when upstream would keep it (already canonical). */
    private readonly text?: string,
  ) {}

  static fromNanos(nanos: bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(nanos, format);
  }

  /** A whole number of units, e.g. bytes or cores. */
  static fromValue(value: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(value) * NANO, format);
  }

  static fromMilliValue(milli: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(milli) * 1_000_000n, format);
  }

  /** Parses a quantity; throws QuantityParseError with upstream's messages. */
  static parse(str: string): Quantity {
    const parsed = parseParts(str);
    return new Quantity(parsed.nanos, parsed.format, parsed.keepText ? str : undefined);
  }

  /** The value rounded away from zero to a whole unit (upstream's Value()). */
  value(): number {
    return Number(ceilDiv(this.nanos, NANO));
  }

  /** The value in thousandths, rounded away from zero (upstream's MilliValue()). */
  milliValue(): number {
    return Number(ceilDiv(this.nanos, 1_000_000n));
  }

  /** The value as a float, for display and ratios only. */
  toNumber(): number {
    return Number(this.nanos) / 1e9;
  }

  isZero(): boolean {
    return this.nanos === 0n;
  }

  sign(): -1 | 0 | 1 {
    return this.nanos === 0n ? 0 : this.nanos > 0n ? 1 : -1;
  }

  cmp(other: Quantity): -1 | 0 | 1 {
    return this.nanos === other.nanos ? 0 : this.nanos < other.nanos ? -1 : 1;
  }

  equal(other: Quantity): boolean {
    return this.nanos === other.nanos;
  }

  /** Keeps this quantity's format, or takes the other's when this one is zero, as upstream. */
  add(other: Quantity): Quantity {
    return new Quantity(this.nanos + other.nanos, this.isZero() ? other.format : this.format);
  }

  sub(other: Quantity): Quantity {
    return new Quantity(this.nanos - other.nanos, this.isZero() ? other.format : this.format);
  }

  neg(): Quantity {
    return new Quantity(-this.nanos, this.format);
  }

  toString(): string {
    if (this.text !== undefined) return this.text;
    return canonicalize(this.nanos, this.format);
  }

  toJSON(): string {
    return this.toString();
  }
}

function canonicalize(nanos: bigint, format: QuantityFormat): string {
  if (nanos === 0n) return '0';
  if (format === 'BinarySI' && abs(nanos) >= 1024n * NANO && nanos % NANO === 0n) {
    let units = nanos / NANO;
    let power = 0;
    while (power < BINARY_BY_POWER.length - 1 && abs(units) >= 1024n && units % 1024n === 0n) {
      units /= 1024n;
      power++;
    }
    return `${units}${BINARY_BY_POWER[power]}`;
  }
  // Small or fractional binary amounts print as decimal SI rather than lose precision.
  let mantissa = nanos;
  let exponent = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  while (exponent % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  if (exponent > 18) {
    mantissa *= 10n ** BigInt(exponent - 18);
    exponent = 18;
  }
  return `${mantissa}${DECIMAL_BY_EXPONENT.get(exponent)}`;
}

interface Parts {
  positive: boolean;
  /** Integer digits without leading zeros; "0" when there are none. */
  num: string;
  denom: string;
  suffix: string;
  /** Only zeros after the sign: upstream returns early, never through its fast path. */
  zeros: boolean;
}

/** Splits the text like upstream's parseQuantityString. */
function split(str: string): Parts {
  let pos = 0;
  let positive = true;
  if (str[0] === '-' || str[0] === '+') {
    positive = str[0] === '+';
    pos++;
  }
  while (pos < str.length && str[pos] === '0') pos++;
  if (pos >= str.length) return { positive, num: '0', denom: '', suffix: '', zeros: true };
  const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  const numStart = pos;
  while (isDigit(str[pos])) pos++;
  const num = str.slice(numStart, pos) || '0';
  let denom = '';
  if (str[pos] === '.') {
    const start = ++pos;
    while (isDigit(str[pos])) pos++;
    denom = str.slice(start, pos);
  }
  const suffixStart = pos;
  while (pos < str.length && 'eEinumkKMGTP'.includes(str[pos])) pos++;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (isDigit(str[pos])) pos++;
  if (pos < str.length) throw new QuantityParseError('format');
  return { positive, num, denom, suffix: str.slice(suffixStart), zeros: false };
}

function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: QuantityFormat } {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) return { base: 10, exponent: DECIMAL_SUFFIXES[suffix], format: 'DecimalSI' };
  if (Object.hasOwn(BINARY_SUFFIXES, suffix)) return { base: 2, exponent: BINARY_SUFFIXES[suffix], format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?[0-9]+$/.test(suffix.slice(1))) {
    const exponent = Number(suffix.slice(1));
    if (Math.abs(exponent) > MAX_EXPONENT) throw new QuantityParseError('numeric');
    return { base: 10, exponent, format: 'DecimalExponent' };
  }
  throw new QuantityParseError('suffix');
}

/** Parses a quantity; throws QuantityParseError with upstream's messages. */
export function parseQuantity(str: string): Quantity {
  return Quantity.parse(str);
}

function parseParts(str: string): { nanos: bigint; format: QuantityFormat; keepText: boolean } {
  if (str.length === 0) throw new QuantityParseError('format');
  if (str === '0') return { nanos: 0n, format: 'DecimalSI', keepText: false };
  const parts = split(str);
  const { base, exponent, format } = interpretSuffix(parts.suffix);
  const digits = BigInt(parts.num + parts.denom);
  const magnitude =
    base === 10
      ? scaleDecimal(digits, exponent - parts.denom.length + 9)
      : ceilDiv(digits * (1n << BigInt(exponent)) * NANO, 10n ** BigInt(parts.denom.length));
  let nanos = parts.positive ? magnitude : -magnitude;
  let finalFormat = format;
  if (format === 'BinarySI') {
    // Upstream caps binary amounts at the int64 maximum and prints fractions below one as decimal.
    if (magnitude > INT64_MAX * NANO) nanos = parts.positive ? INT64_MAX * NANO : -INT64_MAX * NANO;
    if (magnitude > 0n && magnitude < NANO) finalFormat = 'DecimalSI';
  }
  return { nanos, format: finalFormat, keepText: keepsText(parts, base, exponent) };
}

/** digits × 10^power, rounded up (away from zero) to a whole number. */
function scaleDecimal(digits: bigint, power: number): bigint {
  return power >= 0 ? digits * 10n ** BigInt(power) : ceilDiv(digits, 10n ** BigInt(-power));
}

/**
 * Upstream keeps the original text of quantities that parse through its
 * int64 fast path and already look canonical; mirror it so round-trips match.
 */
function keepsText(parts: Parts, base: 2 | 10, exponent: number): boolean {
  if (parts.zeros) return false;
  const shifted = parts.num + parts.denom;
  if (base === 2) {
    if (parts.denom.length > 0) return false;
    const precision = 15 - parts.num.length - Math.trunc((exponent * 3) / 10) - 1;
    const value = BigInt(shifted);
    if (precision < 0 || value * (1n << BigInt(exponent)) > INT64_MAX) return false;
    return exponent % 10 === 0 && (value & 7n) !== 0n;
  }
  const scale = exponent - parts.denom.length;
  if (shifted.length > 18 || scale < -9) return false;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}
