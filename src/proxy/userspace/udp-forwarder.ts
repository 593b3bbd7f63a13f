import dgram from 'node:dgram';
import type { Forwarder, PickTarget } from './tcp-forwarder.js';

interface Session {
  socket: dgram.Socket;
  timer: ReturnType<typeof setTimeout>;
}

/** A client's flow is forgotten after this long without datagrams. */
const IDLE_TIMEOUT_MS = 30_000;

/**
 * Relays datagrams for one address and port. Each client (address:port)
 * gets its own upstream socket to one backend, so replies find their way
 * back; idle flows expire. With no backend the datagram is dropped.
 */
export class UdpForwarder implements Forwarder {
  private readonly socket = dgram.createSocket('udp4');
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly pick: PickTarget,
    private readonly idleTimeoutMs = IDLE_TIMEOUT_MS,
  ) {
    this.socket.on('message', (msg, rinfo) => this.relay(msg, rinfo));
    this.socket.on('error', () => undefined);
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.bind({ address: this.host, port: this.port, exclusive: true }, () => {
        this.socket.off('error', reject);
        resolve();
      });
    });
  }

  close(): Promise<void> {
    for (const key of [...this.sessions.keys()]) this.end(key);
    return new Promise((resolve) => {
      try {
        this.socket.close(() => resolve());
      } catch {
        resolve(); // never bound
      }
    });
  }

  private relay(msg: Buffer, client: dgram.RemoteInfo): void {
    const key = `${client.address}:${client.port}`;
    let session = this.sessions.get(key);
    if (!session) {
      const target = this.pick(client.address);
      if (!target) return;
      const upstream = dgram.createSocket('udp4');
      upstream.on('message', (reply) => {
        this.touch(key);
        this.socket.send(reply, client.port, client.address);
      });
      upstream.on('error', () => this.end(key));
      upstream.connect(target.port, target.ip);
      session = { socket: upstream, timer: setTimeout(() => this.end(key), this.idleTimeoutMs) };
      this.sessions.set(key, session);
    }
    this.touch(key);
    const s = session.socket;
    // connect() is asynchronous; send once it has completed.
    try {
      s.send(msg);
    } catch {
      s.once('connect', () => s.send(msg));
    }
  }

  private touch(key: string): void {
    const s = this.sessions.get(key);
    if (s) s.timer.refresh();
  }

  private end(key: string): void {
    const s = this.sessions.get(key);
    if (!s) return;
    this.sessions.delete(key);
    clearTimeout(s.timer);
    s.socket.close();
  }
}
