import type { TracingOptions } from '../trace/tracing.js';
import { UsageError, type FlagSpec } from './flags.js';

/** Tracing, for the API server and every daemon (`skiff server` applies them to the whole process). */
export const TRACING_FLAGS = {
  tracing: { type: 'string', default: 'true', description: 'record causal spans into the built-in trace store (false: no tracing at all)' },
  'tracing-endpoint': { type: 'string', default: '', description: 'also export every span over OTLP/HTTP to this URL, e.g. http://127.0.0.1:4318/v1/traces' },
  'tracing-sampling-ratio': { type: 'string', default: '1', description: 'share of new traces recorded, 0 to 1 (joined traces follow their caller)' },
  'trace-store-max-spans': { type: 'string', default: '20000', description: 'spans the built-in trace store keeps at most (oldest traces evicted first)' },
  'trace-store-max-age': { type: 'string', default: '3600', description: 'seconds a trace stays in the built-in store after its last span' },
} satisfies FlagSpec;

type Flags = Record<string, string | boolean | string[] | undefined>;

function number(flags: Flags, name: string, check: (n: number) => boolean, what: string): number {
  const n = Number(flags[name]);
  if (!Number.isFinite(n) || !check(n)) throw new UsageError(`--${name} must be ${what}, not ${JSON.stringify(flags[name])}`);
  return n;
}

export function tracingFromFlags(flags: Flags): TracingOptions {
  const enabled = String(flags.tracing ?? 'true');
  if (enabled !== 'true' && enabled !== 'false') throw new UsageError(`--tracing must be true or false, not ${JSON.stringify(enabled)}`);
  const endpoint = String(flags['tracing-endpoint'] ?? '');
  if (endpoint && !/^https?:\/\//.test(endpoint)) throw new UsageError(`--tracing-endpoint must be an http(s) URL, not ${JSON.stringify(endpoint)}`);
  return {
    enabled: enabled === 'true',
    endpoint: endpoint || undefined,
    samplingRatio: number(flags, 'tracing-sampling-ratio', (n) => n >= 0 && n <= 1, 'a number from 0 to 1'),
    store: {
      maxSpans: number(flags, 'trace-store-max-spans', (n) => n >= 0, 'a count ≥ 0'),
      maxAgeMs: number(flags, 'trace-store-max-age', (n) => n > 0, 'a positive number of seconds') * 1000,
    },
  };
}

/** The service.name a component's spans carry: upstream's binary names. */
export function componentServiceName(command: string): string {
  return ['controller-manager', 'scheduler', 'proxy', 'apiserver'].includes(command) ? `kube-${command}` : command;
}
