import { createWriteStream, renameSync, statSync, type WriteStream } from 'node:fs';

export type LogStream = 'stdout' | 'stderr';

/** RFC 3339 with nanoseconds, as CRI log lines carry (JS clocks stop at ms). */
export function criTimestamp(d: Date = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

/**
 * Writes a container's output as CRI log lines (`<time> <stream> <F|P> <text>`)
 * to one file, rotating it to `<file>.1` once it passes `maxBytes`, as the
 * kubelet's container log manager does for real runtimes.
 */
export class CriLogWriter {
  private out: WriteStream;
  private size = 0;
  private readonly partial: Record<LogStream, string> = { stdout: '', stderr: '' };

  constructor(
    private readonly path: string,
    private readonly maxBytes = 10 * 1024 * 1024,
  ) {
    try {
      this.size = statSync(path).size;
    } catch {
      this.size = 0;
    }
    this.out = createWriteStream(path, { flags: 'a' });
  }

  write(stream: LogStream, chunk: Buffer | string): void {
    const text = this.partial[stream] + chunk.toString();
    const lines = text.split('\n');
    this.partial[stream] = lines.pop() ?? '';
    for (const line of lines) this.line(stream, 'F', line);
    // a very long line without a newline is flushed as partial, as CRI does at 16 KiB
    if (this.partial[stream].length > 16 * 1024) {
      this.line(stream, 'P', this.partial[stream]);
      this.partial[stream] = '';
    }
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
    const entry = `${criTimestamp()} ${stream} ${tag} ${text}\n`;
    this.out.write(entry);
    this.size += Buffer.byteLength(entry);
    if (this.size > this.maxBytes) this.rotate();
  }

  private rotate(): void {
    this.out.end();
    try {
      renameSync(this.path, `${this.path}.1`);
    } catch {
      // the file vanished (pod removed); start a fresh one regardless
    }
    this.out = createWriteStream(this.path, { flags: 'a' });
    this.size = 0;
  }
}

export interface CriLogLine {
  time: Date;
  timestamp: string;
  stream: LogStream;
  partial: boolean;
  text: string;
}

/** Parses one CRI log line; undefined for malformed lines. */
export function parseCriLogLine(line: string): CriLogLine | undefined {
  const m = /^(\S+) (stdout|stderr) ([FP]) ?(.*)$/s.exec(line);
  if (!m) return undefined;
  return { timestamp: m[1], time: new Date(m[1]), stream: m[2] as LogStream, partial: m[3] === 'P', text: m[4] };
}
