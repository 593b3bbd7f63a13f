import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SqliteStorage } from '../../storage/sqlite/index.js';
import { UnavailableError } from '../../storage/errors.js';
import type { ComponentCommand } from '../command.js';
import { UsageError } from '../flags.js';

/**
 * `skiff storage defrag|check` on the SQLite database of a stopped API
 * server (as `etcdutl defrag --data-dir`). A running server defragments by
 * itself when its NOSPACE alarm is raised and space was freed.
 */
export const command: ComponentCommand = {
  name: 'storage',
  summary: 'Maintain a stopped API server\'s SQLite database: `storage defrag` (give free pages back, clear NOSPACE), `storage check` (integrity).',
  positionals: true,
  flags: {
    'data-dir': { type: 'string', default: './.skiff', description: 'the API server\'s data dir (holding state.db)' },
  },
  async run(flags) {
    const [verb] = (flags._ as string[] | undefined) ?? [];
    if (verb !== 'defrag' && verb !== 'check') throw new UsageError(`unknown storage command ${JSON.stringify(verb ?? '')}, want defrag or check`);
    const path = join(resolve(String(flags['data-dir'])), 'state.db');
    if (!existsSync(path)) throw new UsageError(`no database at ${path}`);
    let storage: SqliteStorage;
    try {
      // opening checks integrity (IntegrityError says what is wrong)
      storage = SqliteStorage.open({ path, lockTimeoutMs: 0, quotaBytes: 0 });
    } catch (err) {
      if (err instanceof UnavailableError) throw new UsageError(`${err.message}: stop the API server first (a running one defragments by itself under NOSPACE)`);
      throw err;
    }
    try {
      const before = storage.stats();
      if (verb === 'defrag') await storage.defragment();
      const after = storage.stats();
      const mib = (pages: number) => `${((pages * 4096) / 1048576).toFixed(1)} MiB`;
      process.stdout.write(
        verb === 'defrag'
          ? `defragmented ${path}: ${mib(before.pageCount)} → ${mib(after.pageCount)}\n`
          : `${path}: ok (${mib(after.pageCount)}, ${after.freePages} free pages, revision ${await storage.currentRevision()})\n`,
      );
    } finally {
      await storage.close();
    }
  },
};
