import type http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';

type AnyServer = http.Server | https.Server;

/** Starts listening; resolves with the bound port (port 0 picks a free one). */
export async function listen(server: AnyServer, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    // a deep accept queue (the kernel caps it at net.core.somaxconn): a flood of connections must not make new ones (an admin's) wait for SYN retransmits
    server.listen({ port, host, backlog: 4096 }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export interface CloseOptions {
  /** How long in-flight requests may take before their connections are cut. Default 5,000 ms; 0 cuts at once. */
  drainMs?: number;
}

/**
 * Stops accepting connections and resolves once every connection is gone:
 * idle keep-alive connections close at once (and as they become idle), busy
 * ones get `drainMs` to finish.
 */
export async function closeGracefully(server: AnyServer, opts: CloseOptions = {}): Promise<void> {
  const drainMs = opts.drainMs ?? 5000;
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  if (drainMs <= 0) {
    server.closeAllConnections();
    await closed;
    return;
  }
  // a finished long request (e.g. an ended watch) leaves its connection idle only after its last write
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  const cut = setTimeout(() => server.closeAllConnections(), drainMs);
  try {
    await closed;
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
}
