import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../../machinery/logger.js';
import { Auditor } from './auditor.js';
import { LogBackend } from './log-backend.js';
import { AuditPolicyError, parsePolicy } from './policy.js';
import { policyRuleEvaluator } from './policy-rule-evaluator.js';
import { RotatingFileWriter, StdoutWriter } from './rotating-file-writer.js';

/** Upstream's --audit-* flags for the log backend. */
export interface AuditLogOptions {
  policyFile: string;
  /** '' : no log; '-': standard output. */
  logPath: string;
  /** MB before rotation (0: 100 MB, lumberjack's default). */
  maxSizeMB: number;
  maxBackups: number;
  maxAgeDays: number;
}

export interface AuditSetup {
  auditor: Auditor;
  /** Writes what is queued and closes the log. */
  close(): Promise<void>;
}

/**
 * The auditor for the flags, as upstream builds it: the policy file is read
 * and validated at start (an unusable one is an AuditPolicyError); without
 * a policy file nothing is recorded, even with a log path.
 */
export function auditFromOptions(opts: AuditLogOptions, logger: Logger): AuditSetup {
  const policy = opts.policyFile ? parsePolicy(readPolicyFile(opts.policyFile), opts.policyFile) : undefined;
  if (!opts.logPath) {
    if (policy) logger.info('audit policy loaded but no --audit-log-path given: no audit events are written');
    return { auditor: new Auditor(), close: async () => {} };
  }
  if (!policy) {
    logger.info('no audit policy file provided: no events will be recorded for the log backend');
    return { auditor: new Auditor(), close: async () => {} };
  }
  if (opts.logPath !== '-') ensureLogFile(opts.logPath);
  const writer =
    opts.logPath === '-'
      ? new StdoutWriter()
      : new RotatingFileWriter({
          path: opts.logPath,
          maxSizeBytes: opts.maxSizeMB * 1024 * 1024,
          maxBackups: opts.maxBackups,
          maxAgeDays: opts.maxAgeDays,
          onError: (err) => logger.error('audit log write failed', { path: opts.logPath, error: err.message }),
        });
  const backend = new LogBackend(writer);
  logger.info('audit log enabled', { path: opts.logPath, rules: policy.rules.length });
  return { auditor: new Auditor({ evaluator: policyRuleEvaluator(policy), sink: backend }), close: () => backend.close() };
}

/** --audit-log-path cannot be written: the server refuses to start. */
export class AuditLogPathError extends Error {
  override readonly name = 'AuditLogPathError';
}

/** As upstream: the directory is made and the file created (owner-only) at start, so a bad path fails early. */
function ensureLogFile(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  } catch (err) {
    throw new AuditLogPathError(`cannot open audit log ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function readPolicyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new AuditPolicyError(`failed to read audit policy file ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
