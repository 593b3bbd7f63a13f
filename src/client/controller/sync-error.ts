import type { Logger } from '../../machinery/logger.js';
import { isConflict, isNotFound } from '../rest/error-predicates.js';
import { TerminalError } from './reconciler.js';

/**
 * How every controller reports a failed sync (the one path, called by
 * `Controller`): conflicts and vanished objects are routine (a stale cache, a
 * concurrent delete) and log at debug; anything else logs at warn with the
 * error's message and stack. A TerminalError is not retried, which the entry says.
 */
export function logSyncError(logger: Logger, key: string, err: unknown): void {
  const fields: Record<string, unknown> = { key, error: err instanceof Error ? err.message : String(err) };
  if (isConflict(err) || isNotFound(err)) return logger.debug('sync retried', fields);
  if (err instanceof Error && err.stack) fields.stack = err.stack;
  logger.warn(err instanceof TerminalError ? 'sync failed, not retried' : 'sync failed', fields);
}
