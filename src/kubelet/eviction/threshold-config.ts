import { Quantity } from '../../machinery/quantity.js';
import { parseDuration } from '../../machinery/duration.js';
import { isSignal, type Signal } from './signals.js';

/** A threshold's value: an absolute quantity (bytes, inodes, processes) or a fraction of capacity. */
export type ThresholdValue = { quantity: number; text: string } | { percentage: number };

/** One eviction threshold (`memory.available<100Mi`); a grace period of 0 makes it hard. */
export interface Threshold {
  signal: Signal;
  value: ThresholdValue;
  gracePeriodMs: number;
  minReclaim?: ThresholdValue;
}

/** Upstream's --eviction-hard default on Linux; a flag that names any signal replaces all of it, as upstream's. */
export const DEFAULT_EVICTION_HARD = 'memory.available<100Mi,nodefs.available<10%,imagefs.available<15%,nodefs.inodesFree<5%';

/** A bad eviction flag; the message is upstream's where it has one. */
export class EvictionConfigError extends Error {
  override readonly name = 'EvictionConfigError';
}

export interface EvictionFlags {
  /** `--eviction-hard`: `signal<value,…`. */
  hard?: string;
  /** `--eviction-soft`: `signal<value,…`, each with a grace period in `softGracePeriod`. */
  soft?: string;
  /** `--eviction-soft-grace-period`: `signal=duration,…`. */
  softGracePeriod?: string;
  /** `--eviction-minimum-reclaim`: `signal=quantity|percent,…`. */
  minimumReclaim?: string;
}

function pairs(s: string | undefined, sep: '<' | '='): [string, string][] {
  const out: [string, string][] = [];
  for (const part of (s ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const i = part.indexOf(sep);
    if (i <= 0) throw new EvictionConfigError(sep === '<' ? `invalid eviction threshold ${JSON.stringify(part)}, want signal<quantity or signal<percent%` : `invalid ${JSON.stringify(part)}, want signal=value`);
    out.push([part.slice(0, i).trim(), part.slice(i + 1).trim()]);
  }
  return out;
}

function signalOf(name: string): Signal {
  if (!isSignal(name)) throw new EvictionConfigError(`unsupported eviction signal ${name}`);
  return name;
}

/** A percentage as upstream holds it: a float32 fraction, so `20%` of 64 MiB is 13421773 bytes there, and here too. */
function percentage(val: string): number {
  const n = Number(val.slice(0, -1));
  if (val.length < 2 || !Number.isFinite(n)) throw new EvictionConfigError(`invalid percentage ${JSON.stringify(val)}`);
  return Math.fround(Math.fround(n) / 100);
}

function quantity(val: string): number {
  try {
    return Quantity.parse(val).value();
  } catch {
    throw new EvictionConfigError(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${JSON.stringify(val)}`);
  }
}

/** One `signal<value` statement; undefined for 0% and 100%, which upstream ignores. */
function parseThreshold(name: string, val: string): Threshold | undefined {
  const signal = signalOf(name);
  if (val.endsWith('%')) {
    if (val === '0%' || val === '100%') return undefined;
    const p = percentage(val);
    if (p < 0) throw new EvictionConfigError(`eviction percentage threshold ${signal} must be >= 0%: ${val}`);
    if (p > 1) throw new EvictionConfigError(`eviction percentage threshold ${signal} must be <= 100%: ${val}`);
    return { signal, value: { percentage: p }, gracePeriodMs: 0 };
  }
  const q = quantity(val);
  if (q <= 0) throw new EvictionConfigError(`eviction threshold ${signal} must be positive: ${val}`);
  return { signal, value: { quantity: q, text: val }, gracePeriodMs: 0 };
}

/** The thresholds from the eviction flags, as upstream's ParseThresholdConfig: hard ones first, then soft ones with their grace periods. */
export function parseThresholdConfig(flags: EvictionFlags): Threshold[] {
  const hard = pairs(flags.hard ?? DEFAULT_EVICTION_HARD, '<').map(([k, v]) => parseThreshold(k, v)).filter((t): t is Threshold => t !== undefined);
  const soft = pairs(flags.soft, '<').map(([k, v]) => parseThreshold(k, v)).filter((t): t is Threshold => t !== undefined);
  const grace = new Map<Signal, number>();
  for (const [k, v] of pairs(flags.softGracePeriod, '=')) {
    const signal = signalOf(k);
    let ms: number;
    try {
      ms = parseDuration(v);
    } catch {
      throw new EvictionConfigError(`invalid eviction grace period specified: ${v}, must be a duration such as 1m30s`);
    }
    if (ms < 0) throw new EvictionConfigError(`invalid eviction grace period specified: ${v}, must be a positive value`);
    grace.set(signal, ms);
  }
  for (const t of soft) {
    const ms = grace.get(t.signal);
    if (ms === undefined) throw new EvictionConfigError(`grace period must be specified for the soft eviction threshold ${t.signal}`);
    t.gracePeriodMs = ms;
  }
  const reclaim = new Map<Signal, ThresholdValue>();
  for (const [k, v] of pairs(flags.minimumReclaim, '=')) {
    const signal = signalOf(k);
    if (v.endsWith('%')) {
      const p = percentage(v);
      if (p <= 0) throw new EvictionConfigError(`eviction percentage minimum reclaim ${signal} must be positive: ${v}`);
      reclaim.set(signal, { percentage: p });
    } else {
      const q = quantity(v);
      if (q < 0) throw new EvictionConfigError(`negative eviction minimum reclaim specified for ${signal}`);
      reclaim.set(signal, { quantity: q, text: v });
    }
  }
  const all = [...hard, ...soft];
  for (const t of all) {
    const r = reclaim.get(t.signal);
    if (r) t.minReclaim = r;
  }
  return all;
}

/** The threshold's value against a capacity (a percentage of it, rounded down as upstream's int64 conversion). */
export function thresholdQuantity(value: ThresholdValue, capacity: number): number {
  return 'quantity' in value ? value.quantity : Math.floor(capacity * value.percentage);
}

/** The threshold's value as upstream prints it: a quantity as written (canonical), a percentage as binary bytes of the capacity. */
export function formatThresholdQuantity(value: ThresholdValue, capacity: number): string {
  return 'quantity' in value ? Quantity.parse(value.text).toString() : Quantity.fromValue(thresholdQuantity(value, capacity), 'BinarySI').toString();
}

export function isHardThreshold(t: Threshold): boolean {
  return t.gracePeriodMs === 0;
}

/** `signal<value` for logs. */
export function formatThreshold(t: Threshold): string {
  const v = 'quantity' in t.value ? t.value.text : `${Math.round(t.value.percentage * 10000) / 100}%`;
  return `${t.signal}<${v}${t.gracePeriodMs ? ` after ${t.gracePeriodMs / 1000}s` : ''}`;
}
