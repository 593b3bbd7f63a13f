/**
 * Structured logging: one JSON object per line on stderr, with time, level,
 * component and message, plus any fields.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  with(fields: Record<string, unknown>): Logger;
}

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

function threshold(): number {
  const env = (process.env.SKIFF_LOG_LEVEL ?? 'info') as LogLevel;
  return ORDER[env] ?? ORDER.info;
}

export function createLogger(component: string, base: Record<string, unknown> = {}, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const min = threshold();
  const log = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level, component, msg, ...base, ...fields };
    for (const [k, v] of Object.entries(entry)) if (v instanceof Error) entry[k] = v.message;
    write(`${JSON.stringify(entry)}\n`);
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
    with: (fields) => createLogger(component, { ...base, ...fields }, write),
  };
}
