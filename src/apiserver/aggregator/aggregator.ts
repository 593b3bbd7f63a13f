import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceInfo } from '../../api/resource-info.js';
import type { APIService } from '../../api/types/apiregistration/v1.js';
import type { Clock } from '../../base/clock.js';
import type { Logger } from '../../machinery/logger.js';
import type { ApiRegistry } from '../api-registry.js';
import type { UserInfo } from '../authentication/user-info.js';
import type { DiscoverySource } from '../discovery/serve-discovery.js';
import { ApiProxy } from './api-proxy.js';
import { ApiServiceView, isAvailable, isRemote } from './api-service-view.js';
import { AvailabilityController } from './availability-controller.js';
import type { ProxyClientCertificate } from './backend.js';
import { resourcesFromDiscovery } from './remote-resources.js';

export interface AggregatorOptions {
  registry: ApiRegistry;
  logger: Logger;
  clock: Clock;
  proxyClient?: ProxyClientCertificate;
  /** How often every APIService's availability (and discovery) is checked again (default 10 s). */
  resyncMs?: number;
}

/**
 * API aggregation (upstream's kube-aggregator, inside the API server): the
 * APIServices in memory, the proxy for the group/versions other servers
 * serve, the availability controller, and discovery that merges the remote
 * group/versions' resources (fetched by each availability check, so
 * refreshed every resync) with the local registry's. The one place that
 * decides who serves a group/version: an APIService with a `service` wins
 * over a local resource of the same group/version (proxy and discovery alike).
 */
export class Aggregator {
  private readonly view: ApiServiceView;
  private readonly proxy: ApiProxy;
  private controller?: AvailabilityController;
  private readonly remote = new Map<string, ResourceInfo[]>();
  private remoteGeneration = 0;
  private memo = { key: '', values: new Map<string, unknown>() };
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: AggregatorOptions) {
    this.view = new ApiServiceView((name) => this.changed(name));
    this.proxy = new ApiProxy({ registry: opts.registry, proxyClient: opts.proxyClient, onBackendFailure: (svc) => this.controller?.enqueue(svc.metadata?.name ?? '') });
  }

  start(signal: AbortSignal): void {
    const store = this.opts.registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices');
    if (!store) throw new Error('apiservices are not served');
    const controller = new AvailabilityController({
      registry: this.opts.registry,
      proxyClient: this.opts.proxyClient,
      logger: this.opts.logger,
      clock: this.opts.clock,
      signal,
      resyncMs: this.opts.resyncMs ?? 10_000,
      get: (name) => this.view.get(name),
      names: () => this.view.all().map((s) => s.metadata?.name ?? ''),
      onDiscovery: (svc, doc) => this.cacheDiscovery(svc, doc),
    });
    this.controller = controller;
    this.running = Promise.all([this.view.run(store, this.opts.logger, signal), controller.run()]);
  }

  async stopped(): Promise<void> {
    await this.running;
  }

  /** The remote APIService serving a path under `/apis/<group>/<version>`, if any. */
  route(path: string): APIService | undefined {
    if (!path.startsWith('/apis/')) return undefined;
    const [group, version] = path.slice('/apis/'.length).split('/');
    if (!group || !version) return undefined;
    const svc = this.view.forGroupVersion(group, version);
    return isRemote(svc) ? svc : undefined;
  }

  serve(svc: APIService, req: IncomingMessage, res: ServerResponse, user: UserInfo, signal: AbortSignal): Promise<void> {
    return this.proxy.serve(svc, isAvailable(svc), req, res, user, signal);
  }

  /** Discovery's source: local resources (minus group/versions an APIService sends elsewhere) and the remote ones. */
  discoverySource(): DiscoverySource {
    const registry = this.opts.registry;
    return {
      resources: () => {
        const local = registry.resources().filter((r) => !isRemote(this.view.forGroupVersion(r.group, r.version)));
        return [...local, ...[...this.remote.values()].flat()];
      },
      derived: <T>(key: string, produce: () => T): T => {
        const generation = `${registry.generation}/${this.remoteGeneration}`;
        if (this.memo.key !== generation) this.memo = { key: generation, values: new Map() };
        if (this.memo.values.has(key)) return this.memo.values.get(key) as T;
        const value = produce();
        this.memo.values.set(key, value);
        return value;
      },
      isStale: (group, version) => {
        const svc = this.view.forGroupVersion(group, version);
        return isRemote(svc) && !isAvailable(svc);
      },
    };
  }

  /** An APIService changed: check it now; forget the discovery of group/versions no longer remote. */
  private changed(name: string): void {
    this.controller?.enqueue(name);
    const wanted = new Set(this.view.all().filter(isRemote).map((s) => `${s.spec.group ?? ''}/${s.spec.version ?? ''}`));
    let dropped = false;
    for (const gv of this.remote.keys()) if (!wanted.has(gv)) dropped = this.remote.delete(gv) || dropped;
    // availability changes the freshness discovery reports
    this.remoteGeneration++;
    if (dropped) this.remoteGeneration++;
  }

  private cacheDiscovery(svc: APIService, doc: unknown): void {
    const group = svc.spec?.group ?? '';
    const version = svc.spec?.version ?? '';
    const resources = resourcesFromDiscovery(group, version, doc);
    if (!resources) return;
    const gv = `${group}/${version}`;
    if (JSON.stringify(this.remote.get(gv)) === JSON.stringify(resources)) return;
    this.remote.set(gv, resources);
    this.remoteGeneration++;
  }
}
