import net from 'node:net';
import { RuntimeError } from './runtime.js';

/** Connects to host:port, failing with a RuntimeError that carries the dial error. */
export function dialPort(host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host, port });
    const failed = (err: Error) => reject(new RuntimeError('NotFound', `failed to connect to ${host}:${port}: ${err.message}`));
    sock.once('error', failed);
    sock.once('connect', () => {
      sock.off('error', failed);
      // the caller adds its own handler; until then an error must not crash the kubelet
      sock.on('error', () => undefined);
      resolve(sock);
    });
  });
}
