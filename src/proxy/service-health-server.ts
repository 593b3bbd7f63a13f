import { createServer, type Server } from 'node:http';
import type { Logger } from '../machinery/logger.js';
import type { EndpointsMap } from './proxy-mode.js';
import type { ServicePort } from './service-port.js';

/** A Service by namespace and name: `namespace/name`. */
type ServiceKey = string;

/**
 * The number of this node's ready endpoints of each Service that has a
 * health check node port (upstream's LocalReadyEndpoints: distinct endpoint
 * addresses over all the Service's ports).
 */
export function localReadyEndpoints(services: readonly ServicePort[], endpoints: EndpointsMap, nodeName: string): Map<ServiceKey, number> {
  const ips = new Map<ServiceKey, Set<string>>();
  for (const sp of services) {
    if (!sp.healthCheckNodePort) continue;
    const key = `${sp.namespace}/${sp.name}`;
    const set = ips.get(key) ?? new Set<string>();
    ips.set(key, set);
    for (const e of endpoints.get(sp.key) ?? []) if (e.ready && e.nodeName === nodeName) set.add(e.ip);
  }
  return new Map([...ips].map(([k, s]) => [k, s.size]));
}

/** Upstream's answer: 200 when the node has local endpoints and the proxy is healthy, else 503; the JSON tab-indented as its template. */
export function healthCheckResponse(service: ServiceKey, localEndpoints: number, serviceProxyHealthy: boolean): { status: number; body: string } {
  const [namespace, name] = service.split('/');
  const body = JSON.stringify({ service: { namespace, name }, localEndpoints, serviceProxyHealthy }, null, '\t');
  return { status: localEndpoints > 0 && serviceProxyHealthy ? 200 : 503, body };
}

export interface ServiceHealthServerOptions {
  nodeName: string;
  /** Addresses to listen on (the node port addresses); all when absent. */
  addresses?: readonly string[];
  /** Whether the proxy's rules are up to date (kube-proxy's own healthz). */
  proxyHealthy(): boolean;
  logger: Logger;
}

/**
 * kube-proxy's service health server: for each LoadBalancer Service with
 * externalTrafficPolicy Local, an HTTP server on its healthCheckNodePort
 * telling load balancers whether this node has endpoints for it (so they
 * send traffic only to nodes that keep the client's address and have a pod
 * to give it to). Servers open and close as Services come and go.
 */
export class ServiceHealthServer {
  private readonly listeners = new Map<number, { service: ServiceKey; servers: Server[] }>();
  private counts = new Map<ServiceKey, number>();

  constructor(private readonly o: ServiceHealthServerOptions) {}

  async sync(services: readonly ServicePort[], endpoints: EndpointsMap): Promise<void> {
    this.counts = localReadyEndpoints(services, endpoints, this.o.nodeName);
    const wanted = new Map<number, ServiceKey>();
    for (const sp of services) if (sp.healthCheckNodePort) wanted.set(sp.healthCheckNodePort, `${sp.namespace}/${sp.name}`);
    for (const [port, l] of this.listeners) {
      if (wanted.get(port) === l.service) continue;
      this.listeners.delete(port);
      await Promise.all(l.servers.map(close));
    }
    for (const [port, service] of wanted) {
      if (this.listeners.has(port)) continue;
      const servers: Server[] = [];
      try {
        for (const address of this.o.addresses ?? ['0.0.0.0']) servers.push(await this.listen(service, address, port));
        this.listeners.set(port, { service, servers });
      } catch (err) {
        // retried at the next sync (another process may hold the port)
        this.o.logger.error('cannot serve the health check node port', { service, port, error: err });
        await Promise.all(servers.map(close));
      }
    }
  }

  async stop(): Promise<void> {
    const all = [...this.listeners.values()].flatMap((l) => l.servers);
    this.listeners.clear();
    await Promise.all(all.map(close));
  }

  private listen(service: ServiceKey, address: string, port: number): Promise<Server> {
    const server = createServer((_req, res) => {
      const r = healthCheckResponse(service, this.counts.get(service) ?? 0, this.o.proxyHealthy());
      res.writeHead(r.status, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' });
      res.end(r.body);
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, () => {
        server.off('error', reject);
        resolve(server);
      });
    });
  }
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
