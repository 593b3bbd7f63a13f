/**
 * The CRI container log format, as containerd, CRI-O and skiff's process
 * runtime write it: one entry per line, `<RFC3339Nano> <stdout|stderr> <F|P>
 * <text>`, where `P` marks a fragment of a longer line whose rest follows in
 * later entries of the same stream (the runtime splits lines at 16 KiB).
 */

export type LogStream = 'stdout' | 'stderr';

export interface CriLogLine {
  time: Date;
  /** The timestamp as written (nanosecond precision), which `--timestamps` shows. */
  timestamp: string;
  stream: LogStream;
  partial: boolean;
  text: string;
}

/** Parses one CRI log line (without its newline); undefined for a malformed one. */
export function parseCriLogLine(line: string): CriLogLine | undefined {
  const m = /^(\S+) (stdout|stderr) ([FP])(?: (.*))?$/s.exec(line);
  if (!m) return undefined;
  const time = new Date(m[1]);
  if (Number.isNaN(time.getTime())) return undefined;
  return { timestamp: m[1], time, stream: m[2] as LogStream, partial: m[3] === 'P', text: m[4] ?? '' };
}

/** A whole log message: the fragments of one line joined, stamped with its first fragment's time. */
export interface LogMessage {
  time: Date;
  timestamp: string;
  stream: LogStream;
  text: string;
  /** False for a trailing fragment whose end has not been written (yet). */
  complete: boolean;
}

/**
 * Turns CRI log lines into messages, joining `P` fragments per stream (stdout
 * and stderr interleave in one file). Fed line by line, across files and
 * across reads of a growing file.
 */
export class CriLogJoiner {
  private readonly pending = new Map<LogStream, LogMessage>();

  /** The message this line completes, if any. */
  push(line: CriLogLine): LogMessage | undefined {
    const head = this.pending.get(line.stream);
    const msg: LogMessage = head
      ? { ...head, text: head.text + line.text }
      : { time: line.time, timestamp: line.timestamp, stream: line.stream, text: line.text, complete: false };
    if (line.partial) {
      this.pending.set(line.stream, msg);
      return undefined;
    }
    this.pending.delete(line.stream);
    return { ...msg, complete: true };
  }

  /** Fragments still waiting for their end, oldest first (a container that died mid-line). */
  flush(): LogMessage[] {
    const out = [...this.pending.values()].sort((a, b) => a.time.getTime() - b.time.getTime());
    this.pending.clear();
    return out;
  }
}

/** Every message in a chunk of CRI log text made of whole lines; malformed lines are skipped. */
export function parseCriLog(text: string, joiner = new CriLogJoiner()): LogMessage[] {
  const out: LogMessage[] = [];
  for (const raw of text.split('\n')) {
    if (!raw) continue;
    const line = parseCriLogLine(raw);
    const msg = line && joiner.push(line);
    if (msg) out.push(msg);
  }
  return out;
}

/**
 * A log timestamp as upstream's kubelet prints it with `--timestamps`:
 * RFC 3339 with exactly nine fractional digits (Go's RFC3339NanoFixed),
 * whereas runtimes write Go's RFC3339Nano, which drops trailing zeros.
 */
export function fixedNanoTimestamp(ts: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(ts);
  return m ? `${m[1]}.${(m[2] ?? '').padEnd(9, '0').slice(0, 9)}${m[3]}` : ts;
}

/** How `kubectl logs` prints a message: its text and newline, after the timestamp with `--timestamps`. */
export function formatLogMessage(msg: LogMessage, timestamps: boolean): string {
  return `${timestamps ? `${fixedNanoTimestamp(msg.timestamp)} ` : ''}${msg.text}${msg.complete ? '\n' : ''}`;
}
