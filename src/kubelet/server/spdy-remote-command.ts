import type { Duplex } from 'node:stream';
import type { ContainerStreams, StreamOptions } from '../runtime/runtime.js';
import { SpdySession, type SpdyStream } from './spdy/spdy-session.js';
import { exitStatus, failureStatus, parseTerminalSize, type TerminalSize } from './stream-channel.js';

/** Over SPDY each channel is its own stream; v4 is the version whose error stream carries a metav1.Status. */
export const SPDY_REMOTE_COMMAND_PROTOCOLS: readonly string[] = ['v4.channel.k8s.io'];

const STREAM_WAIT_MS = 30_000;

/**
 * One exec or attach session over SPDY (kubectl before WebSocket, and its
 * fallback): the client opens an `error` stream and one stream per channel it
 * asked for (`stdin`, `stdout`, `stderr`, `resize` with a tty); once all are
 * in, the command's streams are spliced to them, and at the end the exit
 * status is written on the error stream before the connection closes.
 */
export async function serveSpdyRemoteCommand(socket: Duplex, opts: StreamOptions, open: (o: { initialSize?: TerminalSize }) => Promise<ContainerStreams>, command: readonly string[]): Promise<void> {
  const expected = ['error', ...(opts.stdin ? ['stdin'] : []), ...(opts.stdout ? ['stdout'] : []), ...(opts.stderr ? ['stderr'] : []), ...(opts.tty ? ['resize'] : [])];
  const streams = new Map<string, SpdyStream>();
  let ready!: () => void;
  const allIn = new Promise<void>((resolve) => (ready = resolve));
  const session = new SpdySession(socket, (s) => {
    const type = s.headers.streamtype ?? '';
    if (!expected.includes(type)) {
      s.resume();
      s.end();
      return;
    }
    streams.set(type, s);
    if (expected.every((t) => streams.has(t))) ready();
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STREAM_WAIT_MS)));
  const ok = await Promise.race([allIn.then(() => true), timedOut, session.closed.then(() => false)]);
  clearTimeout(timer);
  if (ok !== true) {
    session.close();
    return;
  }
  const error = streams.get('error')!;
  error.resume();
  const resize = streams.get('resize');
  let cs: ContainerStreams | undefined;
  let pending = '';
  let firstSize!: (size: TerminalSize | undefined) => void;
  const sized = new Promise<TerminalSize | undefined>((resolve) => (firstSize = resolve));
  let latestSize: TerminalSize | undefined;
  resize?.on('data', (d: Buffer) => {
    // a JSON stream of sizes, one object after another
    pending += d.toString();
    for (let i = pending.indexOf('}'); i >= 0; i = pending.indexOf('}')) {
      const size = parseTerminalSize(Buffer.from(pending.slice(0, i + 1)));
      pending = pending.slice(i + 1);
      if (size && cs) cs.resize(size.width, size.height);
      else if (size) {
        latestSize = size;
        firstSize(size);
      }
    }
  });
  const initialSize = resize ? await Promise.race([sized, new Promise<undefined>((r) => setTimeout(() => r(undefined), 500).unref())]) : undefined;
  try {
    cs = await open({ initialSize });
  } catch (err) {
    error.end(JSON.stringify(failureStatus(err instanceof Error ? err.message : String(err))));
    await finished(error);
    session.close();
    return;
  }
  const c = cs;
  // sizes that came while the session opened (kubectl sends one larger first, then the real one): the last wins
  if (latestSize && latestSize !== initialSize) c.resize(latestSize.width, latestSize.height);
  const stdin = streams.get('stdin');
  if (stdin && c.stdin) stdin.pipe(c.stdin as NodeJS.WritableStream);
  else stdin?.resume();
  void session.closed.then(() => c.close());
  const [result] = await Promise.all([c.done, copy(c.stdout, streams.get('stdout')), copy(c.stderr, streams.get('stderr'))]);
  error.end(JSON.stringify(exitStatus(result.exitCode, command)));
  await finished(error);
  session.close();
}

function copy(from: NodeJS.ReadableStream | undefined, to: SpdyStream | undefined): Promise<void> {
  if (!to) {
    from?.resume();
    return Promise.resolve();
  }
  if (!from) {
    to.end();
    return finished(to);
  }
  from.pipe(to);
  return finished(to);
}

function finished(s: SpdyStream): Promise<void> {
  if (s.writableFinished || s.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    s.once('finish', () => resolve());
    s.once('close', () => resolve());
  });
}
