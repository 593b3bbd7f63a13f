import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../machinery/logger.js';
import { ApiError } from '../../machinery/api-error.js';
import { logSyncError } from './sync-error.js';
import { TerminalError } from './reconciler.js';

function capture(): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  const prev = process.env.SKIFF_LOG_LEVEL;
  process.env.SKIFF_LOG_LEVEL = 'debug';
  const logger = createLogger('test', {}, (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
  process.env.SKIFF_LOG_LEVEL = prev;
  return { lines, logger };
}

test('a failed sync logs at warn with its message and stack', () => {
  const { lines, logger } = capture();
  logSyncError(logger, 'ns/a', new Error('boom'));
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.level, 'warn');
  assert.equal(lines[0]!.msg, 'sync failed');
  assert.equal(lines[0]!.key, 'ns/a');
  assert.equal(lines[0]!.error, 'boom');
  assert.match(String(lines[0]!.stack), /Error: boom\n\s+at /);
});

test('conflicts and not-found are routine: debug, no stack; terminal errors say they are not retried', () => {
  const { lines, logger } = capture();
  logSyncError(logger, 'ns/a', new ApiError(409, 'Conflict', 'the object has been modified'));
  logSyncError(logger, 'ns/b', new TerminalError('bad spec'));
  logSyncError(logger, 'ns/c', 'not an error');
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg, l.key, l.stack === undefined]),
    [
      ['debug', 'sync retried', 'ns/a', true],
      ['warn', 'sync failed, not retried', 'ns/b', false],
      ['warn', 'sync failed', 'ns/c', true],
    ],
  );
});
