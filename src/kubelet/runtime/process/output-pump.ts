import { closeSync, constants, openSync } from 'node:fs';
import net from 'node:net';
import type { LogStream } from './cri-log-writer.js';
import type { ShimFiles } from './container-shim.js';

/** Where a container's output goes: a CRI log file (cri-log-writer.ts), with backpressure. */
export interface OutputLog {
  /** False once the log is behind: no more until `onceDrained`. */
  write(stream: LogStream, chunk: Buffer): boolean;
  onceDrained(fn: () => void): void;
  reopen(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Reads a container's stdout and stderr FIFOs into its CRI log and attached
 * sessions. The read ends are non-blocking sockets on the event loop (a
 * blocking FIFO read would hold a libuv thread per container). A FIFO ends
 * once every writer (the container and whatever inherited its output) has
 * closed it.
 */
export class OutputPump {
  private readonly sockets: net.Socket[] = [];
  private readonly ends: Promise<void>[] = [];

  constructor(files: ShimFiles, private readonly log: OutputLog, sink: (stream: LogStream, data: Buffer) => void) {
    for (const stream of ['stdout', 'stderr'] as const) {
      const fd = openSync(files[stream], constants.O_RDONLY | constants.O_NONBLOCK);
      let sock: net.Socket;
      try {
        sock = new net.Socket({ fd, readable: true, writable: false });
      } catch (err) {
        closeSync(fd);
        throw err;
      }
      sock.on('data', (d: Buffer) => {
        const more = log.write(stream, d);
        sink(stream, d);
        // one chunk per container per turn of the event loop (libuv would read up to 32 at once), and none while its log file is behind:
        // a container writing as fast as it can then blocks on its full pipe instead of filling memory or the event loop
        sock.pause();
        const resume = () => {
          if (!sock.destroyed) sock.resume();
        };
        if (more) setImmediate(resume);
        else log.onceDrained(() => setImmediate(resume));
      });
      sock.on('error', () => undefined);
      this.ends.push(new Promise((resolve) => sock.once('close', () => resolve())));
      this.sockets.push(sock);
    }
  }

  /** Waits (at most `timeoutMs`) for both streams to end, then closes the log. */
  async drain(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.ends), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    await this.detach();
  }

  /** The log file was renamed (rotated): go on in a new one at its path. */
  reopenLog(): Promise<void> {
    return this.log.reopen();
  }

  /** Stops reading (the container keeps its FIFOs and may run on) and closes the log. */
  async detach(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await this.log.close();
  }
}
