import type { Logger } from '../../machinery/logger.js';
import type { EndpointsMap, ProxyMode } from '../proxy-mode.js';
import { RoundRobinBalancer } from '../round-robin.js';
import type { ServiceAddresses } from '../service-addresses.js';
import type { ServicePort } from '../service-port.js';
import { usableEndpoints } from '../usable-endpoints.js';
import { TcpForwarder, type Forwarder } from './tcp-forwarder.js';
import { UdpForwarder } from './udp-forwarder.js';

export interface UserspaceProxierOptions {
  /** Makes cluster IPs local (root), or declines (not root). */
  addresses: ServiceAddresses;
  /** This node, for Local traffic policies. */
  nodeName: string;
  /** Where node ports listen (upstream: all addresses). */
  nodePortAddress?: string;
  logger: Logger;
}

/** Which endpoints a listener sends to: all, or this node's for a Local policy. */
type Scope = 'cluster' | 'node-local';

interface Listener {
  forwarder: Forwarder;
  /** The balancer pool it draws from (changes when the service's policy does). */
  pool: string;
}

interface DesiredListener {
  protocol: 'TCP' | 'UDP';
  host: string;
  port: number;
  pool: string;
}

/**
 * The userspace mode: one forwarder per (address, port) a service is
 * reachable on — its cluster IP when that can be made local, and every
 * address for node ports — splicing each connection to an endpoint chosen
 * round-robin. Needs no root for node ports; SCTP is not supported.
 */
export class UserspaceProxier implements ProxyMode {
  readonly name = 'userspace';
  private readonly balancer = new RoundRobinBalancer();
  private readonly listeners = new Map<string, Listener>();
  private readonly pools = new Set<string>();
  private readonly localIPs = new Set<string>();
  /** Listeners that failed to open, logged once each until they work. */
  private readonly failing = new Set<string>();

  constructor(private readonly o: UserspaceProxierOptions) {}

  async sync(services: readonly ServicePort[], endpoints: EndpointsMap): Promise<void> {
    const desired = new Map<string, DesiredListener>();
    const pools = new Set<string>();
    const wantedIPs = new Set<string>();
    for (const sp of services) {
      if (sp.protocol === 'SCTP') continue;
      const all = endpoints.get(sp.key) ?? [];
      const pool = (scope: Scope): string => {
        const key = `${sp.key}#${scope}`;
        if (!pools.has(key)) {
          pools.add(key);
          const usable = usableEndpoints(all, scope === 'node-local' ? { nodeName: this.o.nodeName } : undefined);
          this.balancer.update(key, usable.map((e) => ({ ip: e.ip, port: e.port })), sp.affinityTimeoutSeconds);
        }
        return key;
      };
      const add = (host: string, port: number, scope: Scope): void => {
        desired.set(`${sp.protocol}:${host}:${port}`, { protocol: sp.protocol as 'TCP' | 'UDP', host, port, pool: pool(scope) });
      };
      if (sp.clusterIP && (await this.makeLocal(sp.clusterIP))) {
        wantedIPs.add(sp.clusterIP);
        add(sp.clusterIP, sp.port, sp.internalLocal ? 'node-local' : 'cluster');
      }
      if (sp.nodePort) add(this.o.nodePortAddress ?? '0.0.0.0', sp.nodePort, sp.externalLocal ? 'node-local' : 'cluster');
    }

    for (const [key, l] of this.listeners) {
      if (desired.has(key)) continue;
      this.listeners.delete(key);
      await l.forwarder.close();
    }
    for (const [key, d] of desired) {
      const existing = this.listeners.get(key);
      if (existing) {
        existing.pool = d.pool;
        continue;
      }
      await this.open(key, d);
    }
    for (const key of this.pools) if (!pools.has(key)) this.balancer.remove(key);
    this.pools.clear();
    for (const key of pools) this.pools.add(key);
    for (const address of [...this.localIPs]) {
      if (wantedIPs.has(address)) continue;
      this.localIPs.delete(address);
      await this.o.addresses.remove(address);
    }
  }

  async stop(): Promise<void> {
    for (const l of this.listeners.values()) await l.forwarder.close(true);
    this.listeners.clear();
    this.localIPs.clear();
    await this.o.addresses.close();
  }

  private async makeLocal(address: string): Promise<boolean> {
    if (this.localIPs.has(address)) return true;
    if (!(await this.o.addresses.add(address))) return false;
    this.localIPs.add(address);
    return true;
  }

  private async open(key: string, d: DesiredListener): Promise<void> {
    const listener: Listener = { pool: d.pool, forwarder: undefined as unknown as Forwarder };
    const pick = (clientIP: string) => this.balancer.next(listener.pool, clientIP);
    listener.forwarder = d.protocol === 'TCP' ? new TcpForwarder(d.host, d.port, pick) : new UdpForwarder(d.host, d.port, pick);
    try {
      await listener.forwarder.listen();
      this.listeners.set(key, listener);
      if (this.failing.delete(key)) this.o.logger.info('listening for service', { listener: key });
    } catch (err) {
      await listener.forwarder.close();
      // Retried on every sync; a port held by someone else should not flood the log.
      if (!this.failing.has(key)) this.o.logger.error('cannot listen for service', { listener: key, error: err });
      this.failing.add(key);
    }
  }
}
