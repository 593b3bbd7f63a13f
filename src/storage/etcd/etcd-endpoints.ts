import { UsageError } from './usage-error.js';

/**
 * Parses `etcd://host:port[,host:port…]` into client URLs (https when TLS
 * material is given, http otherwise).
 */
export function parseEtcdEndpoints(spec: string, secure: boolean): string[] {
  const match = /^etcd:\/\/(.+)$/.exec(spec);
  if (!match) throw new UsageError(`not an etcd URL: ${JSON.stringify(spec)} (expected etcd://host:port[,host:port])`);
  return match[1]!.split(',').map((hostPort) => {
    const trimmed = hostPort.trim().replace(/\/+$/, '');
    if (!/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(trimmed)) throw new UsageError(`invalid etcd endpoint ${JSON.stringify(hostPort)} (expected host:port)`);
    return `${secure ? 'https' : 'http'}://${trimmed}`;
  });
}
