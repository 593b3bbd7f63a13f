import https from 'node:https';
import tls from 'node:tls';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import type { Clock } from '../../base/clock.js';
import type { Logger } from '../../machinery/logger.js';
import type { ApiRegistry } from '../api-registry.js';
import type { KubeletClientTls } from '../kubelet-proxy/kubelet-proxy.js';
import { locateKubeletOnNode } from '../kubelet-proxy/locate-kubelet.js';
import { defaultStrategy } from '../registry/default-strategy.js';
import { RegistryStore } from '../registry/registry-store.js';
import { MetricsScraper } from './metrics-scraper.js';
import { MetricsStorage } from './metrics-storage.js';

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';

const READ_ONLY = ['get', 'list'];

/** The resources metrics-server serves: NodeMetrics (`nodes`) and PodMetrics (`pods`), get and list. */
export const METRICS_RESOURCES: readonly ResourceInfo[] = [
  { group: METRICS_GROUP, version: METRICS_VERSION, kind: 'NodeMetrics', listKind: 'NodeMetricsList', resource: 'nodes', singular: '', namespaced: false, shortNames: [], categories: [], subresources: [], verbs: READ_ONLY },
  { group: METRICS_GROUP, version: METRICS_VERSION, kind: 'PodMetrics', listKind: 'PodMetricsList', resource: 'pods', singular: '', namespaced: true, shortNames: [], categories: [], subresources: [], verbs: READ_ONLY },
];

export interface MetricsApiOptions {
  /** How often kubelets are scraped (metrics-server's --metric-resolution, 15 s). */
  resolutionMs: number;
  /** The client certificate presented to kubelets (needs nodes/metrics). */
  kubeletClient: KubeletClientTls;
  clock: Clock;
  logger: Logger;
}

/**
 * The one registration point of the built-in metrics.k8s.io/v1beta1: adds
 * NodeMetrics and PodMetrics to the registry (so routing, discovery,
 * authorization and selectors treat them as any resource) and returns the
 * scraper loop that fills them. An aggregated APIService for the group
 * (metrics-server's `v1beta1.metrics.k8s.io` with a service) takes over by
 * `unregisterMetricsApi` before requests reach the registry.
 */
export function registerMetricsApi(registry: ApiRegistry, opts: MetricsApiOptions): MetricsScraper {
  // one TLS context and a pool of kept-alive connections (with session resumption) for every kubelet, as metrics-server's
  // http.Transport: a scrape of N nodes costs no N key loads and, while connections live, no N handshakes
  const agent = new https.Agent({
    keepAlive: true,
    secureContext: tls.createSecureContext({ cert: opts.kubeletClient.certPem, key: opts.kubeletClient.keyPem }),
    rejectUnauthorized: false,
    maxCachedSessions: 10_000,
  });
  const scraper = new MetricsScraper({
    resolutionMs: opts.resolutionMs,
    clock: opts.clock,
    logger: opts.logger,
    nodes: async () => (await registry.lookup('', 'v1', 'nodes')!.list('', {})).items as Node[],
    pods: async () => (await registry.lookup('', 'v1', 'pods')!.list('', {})).items as Pod[],
    fetch: (node, signal) => fetchResourceMetrics(node, agent, signal),
  });
  for (const info of METRICS_RESOURCES) {
    const keyRoot = `/registry/${METRICS_GROUP}/${info.resource}/`;
    const storage = new MetricsStorage(() => scraper.snapshot, info.resource as 'nodes' | 'pods', keyRoot);
    registry.add(new RegistryStore({ info, storage, keyRoot, clock: opts.clock, strategy: defaultStrategy(info) }));
  }
  return scraper;
}

/** Stops serving the built-in metrics resources (an aggregated API server serves the group instead). */
export function unregisterMetricsApi(registry: ApiRegistry): void {
  for (const info of METRICS_RESOURCES) registry.remove(info.group, info.version, info.resource);
}

function fetchResourceMetrics(node: Node, agent: https.Agent, signal: AbortSignal): Promise<string> {
  const { host, port } = locateKubeletOnNode(node);
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host, port, path: '/metrics/resource', method: 'GET', agent, signal },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`kubelet ${host}:${port} answered ${res.statusCode}: ${body.slice(0, 200)}`))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
