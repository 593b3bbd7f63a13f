import { isConflict, isNotFound } from '../client/rest/error-predicates.js';
import type { Logger } from '../machinery/logger.js';

/**
 * A Controller onError that logs failed syncs; conflicts and vanished objects
 * are routine (a stale cache, a concurrent delete), so only at debug level.
 */
export function syncErrorLogger(logger: Logger): (key: string, err: unknown) => void {
  return (key, err) => {
    if (isConflict(err) || isNotFound(err)) logger.debug('sync retried', { key, error: err });
    else logger.warn('sync failed', { key, error: err });
  };
}
