import { kubeletStreamOptions } from '../../machinery/query/pod-options.js';
import type { ContainerStreams, StreamOptions } from '../runtime/runtime.js';
import { Channel, decodeChannel, encodeChannel, exitStatus, failureStatus, parseTerminalSize, type TerminalSize } from './stream-channel.js';
import type { WebSocketConnection } from './websocket/websocket-connection.js';

/** The kubelet's `/exec` and `/attach` query, as upstream's remotecommand reads it (`input`, `output`, `error`, `tty` are "1" or off). */
export function parseStreamOptions(q: URLSearchParams): StreamOptions & { command: string[] } {
  return kubeletStreamOptions(q);
}

/**
 * Runs one exec or attach session over a WebSocket speaking the stream
 * channel protocol: stdin and resize messages go in, stdout and stderr come
 * out, and once the output is complete the exit status goes on the error
 * channel before the connection closes. A client that goes away ends the
 * session (an exec'd process is killed).
 */
export async function serveRemoteCommand(ws: WebSocketConnection, open: (opts: { initialSize?: TerminalSize }) => Promise<ContainerStreams>, command: readonly string[], tty: boolean): Promise<void> {
  let streams: ContainerStreams | undefined;
  // input that arrives while the command starts is kept for it
  const early: (Buffer | null)[] = [];
  let firstSize!: (size: TerminalSize | undefined) => void;
  const sized = new Promise<TerminalSize | undefined>((resolve) => (firstSize = resolve));
  let latestSize: TerminalSize | undefined;
  ws.onMessage((m) => {
    const msg = decodeChannel(m.data, ws.protocol);
    if (!msg) return;
    if ('close' in msg) {
      if (msg.close !== Channel.Stdin) return;
      if (streams) streams.stdin?.end();
      else early.push(null);
    } else if (msg.channel === Channel.Stdin && msg.data.length) {
      if (streams) streams.stdin?.write(msg.data);
      else early.push(msg.data);
    } else if (msg.channel === Channel.Resize) {
      const size = parseTerminalSize(msg.data);
      if (!size) return;
      if (streams) streams.resize(size.width, size.height);
      else {
        latestSize = size;
        firstSize(size);
      }
    }
  });
  // a terminal starts at the client's size, which kubectl sends right after connecting
  const initialSize = tty ? await Promise.race([sized, delay(500)]) : undefined;
  try {
    streams = await open({ initialSize });
  } catch (err) {
    ws.send(encodeChannel(Channel.Error, JSON.stringify(failureStatus(err instanceof Error ? err.message : String(err)))));
    ws.close(1000);
    await ws.closed;
    return;
  }
  const s = streams;
  // sizes that came while the session opened (kubectl sends one larger first, then the real one): the last wins
  if (latestSize && latestSize !== initialSize) s.resize(latestSize.width, latestSize.height);
  for (const chunk of early) {
    if (chunk) s.stdin?.write(chunk);
    else s.stdin?.end();
  }
  let clientGone = false;
  void ws.closed.then(() => {
    clientGone = true;
    s.stdin?.end();
    s.close();
  });
  const [result] = await Promise.all([s.done, forward(s.stdout, Channel.Stdout, ws), forward(s.stderr, Channel.Stderr, ws)]);
  if (!clientGone) {
    ws.send(encodeChannel(Channel.Error, JSON.stringify(exitStatus(result.exitCode, command))));
    ws.close(1000);
  }
  await ws.closed;
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}

/** Copies a stream into channel messages with back-pressure; resolves at its end. */
function forward(stream: NodeJS.ReadableStream | undefined, channel: number, ws: WebSocketConnection): Promise<void> {
  if (!stream) return Promise.resolve();
  return new Promise((resolve) => {
    stream.on('data', (d: Buffer) => {
      if (!ws.send(encodeChannel(channel, d)) && ws.isOpen) {
        stream.pause();
        void ws.drained().then(() => stream.resume());
      }
    });
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
  });
}
