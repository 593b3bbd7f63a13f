import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP load balancer in front of several API servers, as an HA cluster
 * has one: each new connection goes to the next backend that accepts it,
 * so components keep one kubeconfig while an API server is down.
 */
export class ApiBalancer {
  private server: Server | undefined;
  private turn = 0;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly backends: number[]) {}

  async start(): Promise<number> {
    const server = createServer((client) => this.forward(client));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  }

  private forward(client: Socket, tried = 0): void {
    this.sockets.add(client);
    client.once('close', () => this.sockets.delete(client));
    client.on('error', () => undefined);
    client.pause();
    const port = this.backends[this.turn++ % this.backends.length]!;
    const upstream = connect(port, '127.0.0.1');
    this.sockets.add(upstream);
    upstream.once('close', () => this.sockets.delete(upstream));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      upstream.pipe(client);
      client.pipe(upstream);
      client.resume();
      upstream.once('close', () => client.destroy());
      client.once('close', () => upstream.destroy());
    });
    upstream.once('error', () => {
      if (!connected && tried + 1 < this.backends.length && !client.destroyed) {
        this.sockets.delete(client);
        this.forward(client, tried + 1);
      } else client.destroy();
    });
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
