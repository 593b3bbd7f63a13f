import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SqliteStorage } from '../../storage/sqlite/index.js';
import { EtcdStorage, EtcdUsageError, memberSizes, parseEtcdEndpoints, type TlsMaterial } from '../../storage/etcd/index.js';
import { UnavailableError } from '../../storage/errors.js';
import type { ComponentCommand } from '../command.js';
import { UsageError } from '../flags.js';

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

/**
 * `skiff storage defrag|check`. On the SQLite database of a stopped API
 * server (as `etcdutl defrag --data-dir`); a running server defragments by
 * itself when its NOSPACE alarm is raised and space was freed. With
 * `--storage etcd://…`, on a live etcd cluster as an operator would with
 * etcdctl: compact at the current revision, defragment every member, disarm
 * NOSPACE (`check` lists the alarms and member sizes).
 */
export const command: ComponentCommand = {
  name: 'storage',
  summary: 'Maintain the API server\'s storage: `storage defrag` (give free space back, clear NOSPACE), `storage check` (integrity, alarms); a stopped server\'s SQLite database or, with --storage etcd://…, a live etcd cluster.',
  positionals: true,
  flags: {
    'data-dir': { type: 'string', default: './.skiff', description: 'the API server\'s data dir (holding state.db)' },
    storage: { type: 'string', default: 'sqlite', description: 'sqlite (the data dir\'s state.db) or etcd://host:port[,host:port]' },
    'etcd-cafile': { type: 'string', default: '', description: 'CA bundle to verify etcd servers (enables TLS)' },
    'etcd-certfile': { type: 'string', default: '', description: 'client certificate for etcd' },
    'etcd-keyfile': { type: 'string', default: '', description: 'client key for etcd' },
  },
  async run(flags) {
    const [verb] = (flags._ as string[] | undefined) ?? [];
    if (verb !== 'defrag' && verb !== 'check') throw new UsageError(`unknown storage command ${JSON.stringify(verb ?? '')}, want defrag or check`);
    const spec = String(flags.storage);
    if (spec.startsWith('etcd://')) return etcd(verb, spec, flags as Record<string, string>);
    if (spec !== 'sqlite') throw new UsageError(`unsupported --storage ${JSON.stringify(spec)} (supported: sqlite, etcd://host:port[,host:port])`);
    return sqlite(verb, join(resolve(String(flags['data-dir'])), 'state.db'));
  },
};

async function sqlite(verb: 'defrag' | 'check', path: string): Promise<void> {
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
    process.stdout.write(
      verb === 'defrag'
        ? `defragmented ${path}: ${mib(before.pageCount * 4096)} → ${mib(after.pageCount * 4096)}\n`
        : `${path}: ok (${mib(after.pageCount * 4096)}, ${after.freePages} free pages, revision ${await storage.currentRevision()})\n`,
    );
  } finally {
    await storage.close();
  }
}

async function etcd(verb: 'defrag' | 'check', spec: string, flags: Record<string, string>): Promise<void> {
  const read = async (path: string | undefined) => (path ? await readFile(path) : undefined);
  const [ca, cert, key] = await Promise.all([read(flags['etcd-cafile']), read(flags['etcd-certfile']), read(flags['etcd-keyfile'])]);
  const tls: TlsMaterial | undefined = ca || cert ? { ca, cert, key } : undefined;
  let endpoints: string[];
  try {
    endpoints = parseEtcdEndpoints(spec, Boolean(tls));
  } catch (err) {
    if (err instanceof EtcdUsageError) throw new UsageError(err.message);
    throw err;
  }
  const storage = new EtcdStorage({ endpoints, ...(tls ? { tls } : {}) });
  try {
    const before = await memberSizes(endpoints, tls);
    if (verb === 'defrag') {
      const revision = await storage.currentRevision();
      await storage.compact(revision);
      await storage.defragment();
      const after = await memberSizes(endpoints, tls);
      for (const [endpoint, size] of before) process.stdout.write(`defragmented ${endpoint}: ${mib(size)} → ${mib(after.get(endpoint) ?? 0)}\n`);
      process.stdout.write(`compacted at revision ${revision}; NOSPACE alarms disarmed\n`);
    } else {
      for (const [endpoint, size] of before) process.stdout.write(`${endpoint}: ${mib(size)}\n`);
    }
    const alarms = await storage.alarms();
    for (const a of alarms) process.stdout.write(`alarm ${a.type}: ${a.message}\n`);
    if (verb === 'check' && alarms.length === 0) process.stdout.write('no alarms\n');
  } finally {
    await storage.close();
  }
}
