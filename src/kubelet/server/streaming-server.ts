import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { hasStreamUrls, RuntimeError, type ContainerStreams, type StreamingRuntime } from '../runtime/runtime.js';
import { PORT_FORWARD_PROTOCOL, PORT_FORWARD_TUNNEL_PROTOCOL, PortForwardHandler } from './port-forward.js';
import { parseStreamOptions, serveRemoteCommand } from './remote-command.js';
import { SpdySession } from './spdy/spdy-session.js';
import { proxyUpgrade } from './upgrade-proxy.js';
import { acceptSpdy, isSpdyRequest } from './spdy/spdy-upgrade.js';
import { serveSpdyRemoteCommand, SPDY_REMOTE_COMMAND_PROTOCOLS } from './spdy-remote-command.js';
import { REMOTE_COMMAND_PROTOCOLS, type TerminalSize } from './stream-channel.js';
import { isWebSocketRequest, offeredProtocols, WebSocketConnection } from './websocket/websocket-connection.js';
import { parseForwardPorts, serveWebSocketPortForward, WEBSOCKET_PORT_FORWARD_PROTOCOLS } from './websocket-port-forward.js';

/** A lookup answer: the runtime id, or why there is none (HTTP code + message). */
export type Located = { id: string; name: string } | { code: number; message: string };

/** Finds what a streaming request names on this node. */
export interface StreamTargets {
  /** A container of a pod (the only one when `container` is empty). */
  container(namespace: string, pod: string, container: string | undefined): Located;
  /** The pod's sandbox. */
  sandbox(namespace: string, pod: string): Located;
}

/**
 * Serves the upgrade requests the API server replays for pods/exec,
 * pods/attach and pods/portforward: `/exec|attach/<ns>/<pod>/<container>`
 * and `/portForward/<ns>/<pod>`. Exec and attach speak the stream-channel
 * protocol over WebSocket (v5, v4) or, for older clients and kubectl's
 * fallback, v4 over SPDY/3.1; port-forward speaks SPDY/3.1, either tunnelled
 * in a WebSocket (kubectl ≥ 1.30) or after a plain SPDY upgrade.
 */
export class StreamingServer {
  constructor(
    private readonly runtime: StreamingRuntime,
    private readonly targets: StreamTargets,
  ) {}

  /** Whether the path is one of ours. */
  handles(path: string): boolean {
    return /^\/(exec|attach|portForward)\//.test(path);
  }

  async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const [kind, namespace, pod, container] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (!namespace || !pod) return reject(socket, 404, 'not found');
    if (kind === 'portForward') return this.portForward(req, socket, head, namespace, pod);
    const target = this.targets.container(namespace, pod, container);
    if ('code' in target) return reject(socket, target.code, target.message);
    const opts = parseStreamOptions(url.searchParams);
    if (kind === 'exec' && opts.command.length === 0) return reject(socket, 400, 'you must specify at least one command for the container');
    if (!opts.stdin && !opts.stdout && !opts.stderr) return reject(socket, 400, 'you must specify at least 1 of stdin, stdout, stderr');
    if (hasStreamUrls(this.runtime)) {
      const streamOpts = { ...opts, stderr: opts.stderr && !opts.tty };
      let url: string;
      try {
        url = kind === 'exec' ? await this.runtime.execUrl(target.id, opts.command, streamOpts) : await this.runtime.attachUrl(target.id, streamOpts);
      } catch (err) {
        if (!(err instanceof RuntimeError)) throw err;
        return reject(socket, 500, err.message);
      }
      return proxyUpgrade(req, socket, head, url);
    }
    const open = (o: { initialSize?: TerminalSize }) => (kind === 'exec' ? this.runtime.exec(target.id, opts.command, { ...opts, ...o }) : attachSession(this.runtime.attach(target.id, { ...opts, ...o })));
    if (isWebSocketRequest(req)) {
      const ws = await WebSocketConnection.accept(req, socket, head, REMOTE_COMMAND_PROTOCOLS);
      if (ws) await serveRemoteCommand(ws, open, opts.command, opts.tty);
    } else if (isSpdyRequest(req)) {
      if (acceptSpdy(req, socket, head, SPDY_REMOTE_COMMAND_PROTOCOLS)) await serveSpdyRemoteCommand(socket, opts, open, opts.command);
    } else {
      reject(socket, 400, `${kind} needs an Upgrade to websocket or SPDY/3.1`);
    }
  }

  private async portForward(req: IncomingMessage, socket: Duplex, head: Buffer, namespace: string, pod: string): Promise<void> {
    const sandbox = this.targets.sandbox(namespace, pod);
    if ('code' in sandbox) return reject(socket, sandbox.code, sandbox.message);
    const handler = new PortForwardHandler((port) => this.runtime.portForward(sandbox.id, port), sandbox.name);
    let session: SpdySession;
    if (isWebSocketRequest(req)) {
      const tunnelled = offeredProtocols(req).includes(PORT_FORWARD_TUNNEL_PROTOCOL);
      // plain WebSocket channels name their ports in the query, as upstream's kubelet requires
      const ports = tunnelled ? [] : parseForwardPorts(new URL(req.url ?? '/', 'https://kubelet').searchParams);
      if ('error' in ports) return reject(socket, 400, ports.error);
      const ws = await WebSocketConnection.accept(req, socket, head, tunnelled ? [PORT_FORWARD_TUNNEL_PROTOCOL] : WEBSOCKET_PORT_FORWARD_PROTOCOLS);
      if (!ws) return;
      if (!tunnelled) return serveWebSocketPortForward(ws, ports, (port) => this.runtime.portForward(sandbox.id, port), sandbox.name);
      session = new SpdySession(ws.stream(), handler.onStream);
    } else if (isSpdyRequest(req)) {
      if (!acceptSpdy(req, socket, head, [PORT_FORWARD_PROTOCOL])) return;
      session = new SpdySession(socket, handler.onStream);
    } else {
      return reject(socket, 400, 'port-forward needs an Upgrade to websocket or SPDY/3.1');
    }
    await session.closed;
  }
}

/**
 * An attach ends in Success whatever the container's exit code, as upstream's
 * kubelet reports it (only exec carries an exit code): `kubectl debug -i` and
 * `attach` would otherwise take the container's own failure for a failed attach.
 */
async function attachSession(attached: Promise<ContainerStreams>): Promise<ContainerStreams> {
  const s = await attached;
  return { ...s, done: s.done.then(() => ({ exitCode: 0 })) };
}

/** Answers an upgrade request with a plain HTTP error (what clients print after "unable to upgrade connection"). */
function reject(socket: Duplex, code: number, message: string): void {
  const reason = code === 404 ? 'Not Found' : code === 403 ? 'Forbidden' : code === 401 ? 'Unauthorized' : code === 500 ? 'Internal Server Error' : 'Bad Request';
  socket.end(`HTTP/1.1 ${code} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(message)}\r\nConnection: close\r\n\r\n${message}`);
}
