import { open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { realClock, type Clock } from '../../base/clock.js';

/** Where audit lines go; write never blocks, flush waits for what was written so far. */
export interface LineWriter {
  write(line: string): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface RotatingFileOptions {
  path: string;
  /** Rotate before the file would grow past this (upstream --audit-log-maxsize in MB; 0 means lumberjack's 100 MB). */
  maxSizeBytes: number;
  /** Old files kept (0: all). */
  maxBackups: number;
  /** Days old files are kept, by the time in their name (0: forever). */
  maxAgeDays: number;
  /** Backup names and ages (default the real clock). */
  clock?: Pick<Clock, 'now'>;
  /** A failed write or rotation; the lines are dropped, the server goes on. */
  onError: (err: Error) => void;
  /** Lines waiting beyond this many bytes are dropped rather than held (default 64 MiB). */
  maxPendingBytes?: number;
}

const DEFAULT_MAX_SIZE = 100 * 1024 * 1024;
const DAY_MS = 86_400_000;

/**
 * An append-only log file rotated by size, as lumberjack (what upstream's
 * audit log backend uses): the full file is renamed to
 * `<name>-<UTC time>.<ext>` (time as 2006-01-02T15-04-05.000), a new one is
 * started, and backups beyond the count or age limits are removed. Writes are
 * queued and written in batches by one drain loop, so a slow disk delays the
 * log, not the request.
 */
export class RotatingFileWriter implements LineWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private draining: Promise<void> | undefined;
  private file: FileHandle | undefined;
  private size = 0;
  private dropped = 0;
  private readonly maxSize: number;
  private readonly clock: Pick<Clock, 'now'>;

  constructor(private readonly opts: RotatingFileOptions) {
    this.maxSize = opts.maxSizeBytes > 0 ? opts.maxSizeBytes : DEFAULT_MAX_SIZE;
    this.clock = opts.clock ?? realClock;
  }

  write(line: string): void {
    const buf = Buffer.from(line);
    if (this.pendingBytes + buf.length > (this.opts.maxPendingBytes ?? 64 * 1024 * 1024)) {
      if (this.dropped++ % 1000 === 0) this.opts.onError(new Error(`audit log ${this.opts.path} is not keeping up: ${this.dropped} line(s) dropped`));
      return;
    }
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    this.draining ??= this.drain();
  }

  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.file?.close().catch(() => {});
    this.file = undefined;
  }

  private async drain(): Promise<void> {
    // let the request that wrote finish first; lines written meanwhile join the batch
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      this.pendingBytes = 0;
      try {
        await this.writeBatch(batch);
      } catch (err) {
        this.opts.onError(err instanceof Error ? err : new Error(String(err)));
        // reopen next time: the file may have been removed or the disk freed
        await this.file?.close().catch(() => {});
        this.file = undefined;
      }
    }
    this.draining = undefined;
  }

  private async writeBatch(lines: Buffer[]): Promise<void> {
    await this.openExisting();
    let chunk: Buffer[] = [];
    let chunkBytes = 0;
    for (const line of lines) {
      if (line.length > this.maxSize) {
        this.opts.onError(new Error(`write length ${line.length} exceeds maximum file size ${this.maxSize}`));
        continue;
      }
      if (this.size + chunkBytes + line.length > this.maxSize) {
        await this.append(chunk);
        chunk = [];
        chunkBytes = 0;
        await this.rotate();
      }
      chunk.push(line);
      chunkBytes += line.length;
    }
    await this.append(chunk);
  }

  private async append(chunk: Buffer[]): Promise<void> {
    if (chunk.length === 0) return;
    const buf = Buffer.concat(chunk);
    await this.file!.write(buf);
    this.size += buf.length;
  }

  private async openExisting(): Promise<void> {
    if (this.file) return;
    // upstream creates the audit log readable by its owner only
    this.file = await open(this.opts.path, 'a', 0o600);
    this.size = (await this.file.stat()).size;
  }

  private async rotate(): Promise<void> {
    await this.file?.close();
    this.file = undefined;
    await rename(this.opts.path, await this.freeBackupName());
    this.file = await open(this.opts.path, 'a', 0o600);
    this.size = 0;
    await this.removeOldBackups();
  }

  /** `<name>-<time>.<ext>`; a later millisecond when rotations come faster than that. */
  private async freeBackupName(): Promise<string> {
    for (let t = this.clock.now(); ; t++) {
      const candidate = backupName(this.opts.path, new Date(t));
      try {
        await stat(candidate);
      } catch {
        return candidate;
      }
    }
  }

  private async removeOldBackups(): Promise<void> {
    const { maxBackups, maxAgeDays } = this.opts;
    if (maxBackups <= 0 && maxAgeDays <= 0) return;
    const backups = await listBackups(this.opts.path);
    const cutoff = this.clock.now() - maxAgeDays * DAY_MS;
    const doomed = backups.filter((b, i) => (maxBackups > 0 && i >= maxBackups) || (maxAgeDays > 0 && b.time < cutoff));
    for (const b of doomed) await rm(b.path, { force: true });
  }
}

const BACKUP_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/;

export function backupName(path: string, at: Date): string {
  const ext = extname(path);
  const stem = basename(path, ext);
  const time = at.toISOString().slice(0, 23).replace(/:/g, '-');
  return join(dirname(path), `${stem}-${time}${ext}`);
}

/** The rotated files of a log, newest first. */
export async function listBackups(path: string): Promise<{ path: string; time: number }[]> {
  const ext = extname(path);
  const prefix = `${basename(path, ext)}-`;
  const out: { path: string; time: number }[] = [];
  for (const name of await readdir(dirname(path))) {
    if (!name.startsWith(prefix) || !name.endsWith(ext)) continue;
    const m = BACKUP_TIME.exec(name.slice(prefix.length, name.length - ext.length));
    if (!m) continue;
    out.push({ path: join(dirname(path), name), time: Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) });
  }
  return out.sort((a, b) => b.time - a.time);
}

/** `--audit-log-path -`: lines to standard output. */
export class StdoutWriter implements LineWriter {
  write(line: string): void {
    process.stdout.write(line);
  }

  flush(): Promise<void> {
    return new Promise((resolve) => process.stdout.write('', () => resolve()));
  }

  close(): Promise<void> {
    return this.flush();
  }
}
