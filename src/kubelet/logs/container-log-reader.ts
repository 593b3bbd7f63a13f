import { readdirSync, readFileSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { realClock, type Clock } from '../../base/clock.js';
import { CriLogJoiner, formatLogMessage, parseCriLog, type LogMessage } from './cri-log-format.js';
import { isRotatedLogOf } from './container-log-rotator.js';

/** What `kubectl logs` asks of one container's log (PodLogOptions after validation). */
export interface LogOptions {
  follow: boolean;
  tailLines?: number;
  timestamps: boolean;
  sinceTime?: Date;
  limitBytes?: number;
}

/** For `follow`: whether the container still writes, and when the reader is no longer wanted. */
export interface LiveLog {
  stillRunning(): boolean;
  signal: AbortSignal;
  clock?: Clock;
  pollMs?: number;
}

/** A container's log files, oldest first: the rotated ones (`<log>.<YYYYMMDD-HHMMSS>`), then the live file. */
export function containerLogFiles(path: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return [path];
  }
  const base = basename(path);
  return [...names.filter((n) => isRotatedLogOf(base, n)).sort().map((n) => join(dirname(path), n)), path];
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // removed by the rotator's cleanup meanwhile
  }
}

/** Everything from `position` to the current end of the file. */
async function readFrom(fd: FileHandle, position: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (;;) {
    const buf = Buffer.alloc(256 * 1024);
    const { bytesRead } = await fd.read(buf, 0, buf.length, position);
    if (bytesRead === 0) return Buffer.concat(parts);
    parts.push(buf.subarray(0, bytesRead));
    position += bytesRead;
  }
}

/**
 * Reads a container's CRI log as upstream's kubelet serves `kubectl logs`:
 * across its rotated files and the live one, fragments joined, `tailLines`
 * then `sinceTime` applied, `limitBytes` cutting the output. With `live`
 * (`-f`) it then follows the live file until the container stops or the
 * reader goes away. The live file is read through one descriptor, and a
 * rotation (the file renamed, the runtime reopening a fresh one) is noticed
 * by its inode: the old descriptor is drained before the new file is opened,
 * so nothing written around a rotation is lost.
 */
export async function readContainerLogs(path: string, opts: LogOptions, out: (chunk: Buffer) => void, live?: LiveLog): Promise<void> {
  let budget = opts.limitBytes ?? Infinity;
  /** Writes what passes `sinceTime`; false once `limitBytes` is used up. */
  const emit = (msgs: LogMessage[]): boolean => {
    for (const m of msgs) {
      if (opts.sinceTime && m.time < opts.sinceTime) continue;
      const b = Buffer.from(formatLogMessage(m, opts.timestamps));
      if (b.length >= budget) {
        out(b.subarray(0, budget));
        budget = 0;
        return false;
      }
      budget -= b.length;
      out(b);
    }
    return true;
  };
  const joiner = new CriLogJoiner();
  const files = containerLogFiles(path);
  const initial: LogMessage[] = [];
  for (const f of files.slice(0, -1)) initial.push(...parseCriLog(readOrEmpty(f), joiner));

  let fd = await open(path, 'r').catch(() => undefined);
  let offset = 0;
  let carry: Buffer = Buffer.alloc(0);
  /** Parses the whole lines of what was read; keeps an unterminated rest for the next read. */
  const take = (chunk: Buffer): LogMessage[] => {
    offset += chunk.length;
    const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    const cut = data.lastIndexOf(0x0a) + 1;
    carry = data.subarray(cut);
    return parseCriLog(data.subarray(0, cut).toString('utf8'), joiner);
  };
  if (fd) initial.push(...take(await readFrom(fd, 0)));
  try {
    if (!live) {
      // a log that ends mid-line (the container died) still shows what it has
      initial.push(...parseCriLog(carry.toString('utf8'), joiner), ...joiner.flush());
    }
    const tailed = opts.tailLines === undefined ? initial : opts.tailLines === 0 ? [] : initial.slice(-opts.tailLines);
    if (!emit(tailed) || !live) return;

    const clock = live.clock ?? realClock;
    while (!live.signal.aborted) {
      // asked before reading, so the last round reads everything the container wrote
      const running = live.stillRunning();
      if (!fd) {
        fd = await open(path, 'r').catch(() => undefined);
        offset = 0;
        carry = Buffer.alloc(0);
      }
      if (fd) {
        if (!emit(take(await readFrom(fd, offset)))) return;
        const [now, held] = await Promise.all([stat(path).catch(() => undefined), fd.stat()]);
        if (now && now.ino !== held.ino) {
          // rotated and reopened: finish the old file, then go on with the new one at once
          if (!emit(take(await readFrom(fd, offset)))) return;
          await fd.close();
          fd = undefined;
          continue;
        }
        if (held.size < offset) {
          offset = 0; // truncated in place
          carry = Buffer.alloc(0);
        }
      }
      if (!running) break;
      await clock.sleep(live.pollMs ?? 250, live.signal);
    }
  } finally {
    await fd?.close();
  }
}
