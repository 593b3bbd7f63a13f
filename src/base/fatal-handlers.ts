import type { Logger } from '../machinery/logger.js';

let installed = false;

/**
 * The process-wide last resort: an exception nobody caught or a rejected
 * promise nobody handled means some loop or request is now in an unknown
 * state. Log it with its stack and exit non-zero, so the supervisor restarts
 * a clean process, rather than limp on. (Writes are transactional, so
 * exiting never leaves half-written data.) Installed once per process.
 */
export function installFatalHandlers(logger: Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  if (installed) return;
  installed = true;
  const fatal = (kind: string, err: unknown) => {
    try {
      logger.error(`${kind}: exiting for a clean restart`, { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    } finally {
      exit(1);
    }
  };
  process.on('uncaughtException', (err) => fatal('uncaught exception', err));
  process.on('unhandledRejection', (reason) => fatal('unhandled promise rejection', reason));
}
