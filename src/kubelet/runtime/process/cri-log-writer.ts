import { createWriteStream, type WriteStream } from 'node:fs';
import type { LogStream } from '../../logs/cri-log-format.js';

export type { LogStream };

/** RFC 3339 with nanoseconds, as CRI log lines carry (JS clocks stop at ms). */
export function criTimestamp(d: Date = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

/**
 * Writes a container's output as CRI log lines (`<time> <stream> <F|P> <text>`)
 * to one file. The kubelet's log rotator renames the file and asks for
 * `reopen()`, as it asks a CRI runtime's ReopenContainerLog.
 */
export class CriLogWriter {
  private out: WriteStream;
  private readonly partial: Record<LogStream, string> = { stdout: '', stderr: '' };

  constructor(private readonly path: string) {
    this.out = createWriteStream(path, { flags: 'a' });
  }

  /** Closes the file (written so far, under whatever name it now has) and goes on in a new one at the path. */
  reopen(): Promise<void> {
    const old = this.out;
    this.out = createWriteStream(this.path, { flags: 'a' });
    return new Promise((resolve) => old.end(() => resolve()));
  }

  /**
   * Appends a chunk of output: its complete lines in one write, all with the
   * chunk's time (a container printing short lines as fast as it can costs a
   * write per chunk, not per line). Returns false once the file's buffer is
   * full: stop reading until `onceDrained`.
   */
  write(stream: LogStream, chunk: Buffer | string): boolean {
    const text = this.partial[stream] + chunk.toString();
    const lines = text.split('\n');
    this.partial[stream] = lines.pop() ?? '';
    const prefix = `${criTimestamp()} ${stream} `;
    let out = lines.length > 0 ? `${prefix}F ${lines.join(`\n${prefix}F `)}\n` : '';
    // a very long line without a newline is flushed as partial, as CRI does at 16 KiB
    if (this.partial[stream].length > 16 * 1024) {
      out += `${prefix}P ${this.partial[stream]}\n`;
      this.partial[stream] = '';
    }
    return out ? this.out.write(out) : !this.out.writableNeedDrain;
  }

  /** Calls `fn` once the file's buffer has been written out (at once if it is not full). */
  onceDrained(fn: () => void): void {
    if (!this.out.writableNeedDrain) return fn();
    this.out.once('drain', fn);
  }

  /** Flushes unterminated output and closes the file. */
  close(): Promise<void> {
    for (const s of ['stdout', 'stderr'] as const) {
      if (this.partial[s]) this.line(s, 'F', this.partial[s]);
      this.partial[s] = '';
    }
    return new Promise((resolve) => this.out.end(() => resolve()));
  }

  private line(stream: LogStream, tag: 'F' | 'P', text: string): void {
    this.out.write(`${criTimestamp()} ${stream} ${tag} ${text}\n`);
  }
}
