import dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { DnsMetrics } from './dns-metrics.js';

export interface UpstreamForwarderOptions {
  /** Upstream resolvers as `ip` or `ip:port` (`[v6]:port`), tried in order. */
  upstreams: readonly string[];
  /** How long to wait for each upstream (CoreDNS's forward plugin gives up after a few seconds). */
  timeoutMs?: number;
  metrics?: DnsMetrics;
}

interface Upstream {
  host: string;
  port: number;
  label: string;
}

function parseUpstream(s: string): Upstream {
  const m = /^\[(.+)\](?::(\d+))?$/.exec(s) ?? (isIPv6(s) ? [s, s] : /^([^:]+)(?::(\d+))?$/.exec(s));
  if (!m) throw new Error(`invalid upstream ${JSON.stringify(s)}`);
  return { host: m[1], port: m[2] ? Number(m[2]) : 53, label: s };
}

/**
 * Forwards queries for names outside the cluster to upstream resolvers over
 * UDP, as CoreDNS's `forward . /etc/resolv.conf`: the query's bytes go out
 * unchanged and the first upstream to answer with the same ID wins.
 */
export class UpstreamForwarder {
  private readonly upstreams: Upstream[];

  constructor(private readonly o: UpstreamForwarderOptions) {
    this.upstreams = o.upstreams.map(parseUpstream);
  }

  get configured(): boolean {
    return this.upstreams.length > 0;
  }

  /** The upstream's answer, or undefined when none answered in time. */
  async forward(query: Buffer): Promise<Buffer | undefined> {
    for (const u of this.upstreams) {
      this.o.metrics?.forwardRequests.inc({ to: u.label });
      const answer = await this.ask(u, query);
      if (answer) return answer;
    }
    this.o.metrics?.forwardFailures.inc();
    return undefined;
  }

  private ask(u: Upstream, query: Buffer): Promise<Buffer | undefined> {
    return new Promise((resolve) => {
      const socket = dgram.createSocket(isIPv6(u.host) ? 'udp6' : 'udp4');
      const id = query.readUInt16BE(0);
      let settled = false;
      const done = (answer: Buffer | undefined): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.close();
        resolve(answer);
      };
      const timer = setTimeout(() => done(undefined), this.o.timeoutMs ?? 2000);
      socket.on('error', () => done(undefined));
      socket.on('message', (msg) => {
        if (msg.length >= 12 && msg.readUInt16BE(0) === id) done(msg);
      });
      socket.send(query, u.port, u.host, (err) => {
        if (err) done(undefined);
      });
    });
  }
}
