import { parseArgs } from 'node:util';

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; default?: string | boolean; description: string; multiple?: boolean; short?: string }>;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parses `--flag value` / `--flag=value` options for one subcommand. */
export function parseFlags<T extends FlagSpec>(args: string[], spec: T, allowPositionals = false): { [K in keyof T]: T[K]['type'] extends 'boolean' ? boolean : string } {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: Object.fromEntries(
        Object.entries(spec).map(([k, v]) => [k, { type: v.type, ...(v.default !== undefined ? { default: v.default as never } : {}), ...(v.multiple ? { multiple: true } : {}), ...(v.short ? { short: v.short } : {}) }]),
      ),
      strict: true,
      allowPositionals,
    });
    // a command that takes arguments (`skiff images import FILE…`) finds them under `_`
    return (allowPositionals ? { ...values, _: positionals } : values) as never;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function usage(command: string, summary: string, spec: FlagSpec): string {
  const lines = [`Usage: skiff ${command} [flags]`, '', summary, '', 'Flags:'];
  for (const [name, s] of Object.entries(spec)) {
    const def = s.default !== undefined && s.default !== '' ? ` (default ${JSON.stringify(s.default)})` : '';
    lines.push(`  --${name.padEnd(28)} ${s.description}${def}`);
  }
  return lines.join('\n');
}
