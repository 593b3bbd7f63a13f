import net from 'node:net';
import type { Target } from '../round-robin.js';

/** Picks the backend for a new connection from this client; undefined: none. */
export type PickTarget = (clientIP: string) => Target | undefined;

export interface Forwarder {
  /** Starts listening; rejects with the listen error (e.g. EADDRINUSE). */
  listen(): Promise<void>;
  /** Stops listening; open connections are cut only when `drop` is set. */
  close(drop?: boolean): Promise<void>;
}

/** Dial attempts per connection before giving up (other endpoints on refusal). */
const MAX_ATTEMPTS = 3;

/**
 * Listens on one address and port and splices each accepted connection to a
 * backend chosen per connection. With no backend the client is reset, like
 * upstream's REJECT rule for services without endpoints.
 */
export class TcpForwarder implements Forwarder {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly pick: PickTarget,
  ) {
    this.server = net.createServer({ allowHalfOpen: true }, (client) => this.accept(client));
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ host: this.host, port: this.port, exclusive: true }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  close(drop = false): Promise<void> {
    return new Promise((resolve) => {
      if (drop) for (const s of this.sockets) s.destroy();
      if (!this.server.listening) resolve();
      else this.server.close(() => resolve());
    });
  }

  private track(s: net.Socket): void {
    this.sockets.add(s);
    s.once('close', () => this.sockets.delete(s));
  }

  private accept(client: net.Socket): void {
    this.track(client);
    client.on('error', () => client.destroy());
    this.dial(client, MAX_ATTEMPTS);
  }

  private dial(client: net.Socket, attemptsLeft: number): void {
    const target = this.pick(client.remoteAddress?.replace(/^::ffff:/, '') ?? '');
    if (!target || client.destroyed) {
      if (!client.destroyed) client.resetAndDestroy();
      return;
    }
    const backend = net.connect({ host: target.ip, port: target.port, allowHalfOpen: true });
    this.track(backend);
    let connected = false;
    backend.once('connect', () => {
      connected = true;
      // pipe() ends the other side on EOF, so half-closes propagate both ways.
      client.pipe(backend);
      backend.pipe(client);
    });
    backend.on('error', () => {
      backend.destroy();
      if (!connected && attemptsLeft > 1) this.dial(client, attemptsLeft - 1);
      else client.resetAndDestroy();
    });
    client.once('close', () => backend.destroy());
    // A backend gone without a FIN (pipe already forwarded a FIN) still ends the client's side.
    backend.once('close', () => {
      if (connected && !client.destroyed) client.end();
    });
  }
}
