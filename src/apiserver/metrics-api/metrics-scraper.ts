import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Clock } from '../../base/clock.js';
import type { Logger } from '../../machinery/logger.js';
import { Quantity } from '../../machinery/quantity.js';
import { cpuRate, decodeResourceMetrics, type ResourcePoint } from './resource-points.js';

/** metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics, as metrics-server serves them. */
export interface NodeMetrics {
  kind: 'NodeMetrics';
  apiVersion: 'metrics.k8s.io/v1beta1';
  metadata: { name: string; creationTimestamp: string; labels?: Record<string, string> };
  timestamp: string;
  window: string;
  usage: { cpu: string; memory: string };
}

export interface PodMetrics {
  kind: 'PodMetrics';
  apiVersion: 'metrics.k8s.io/v1beta1';
  metadata: { name: string; namespace: string; creationTimestamp: string; labels?: Record<string, string> };
  timestamp: string;
  window: string;
  containers: { name: string; usage: { cpu: string; memory: string } }[];
}

export interface MetricsSnapshot {
  /** Bumped by every scrape: the resourceVersion lists report. */
  revision: number;
  nodes: NodeMetrics[];
  pods: PodMetrics[];
}

export interface MetricsScraperOptions {
  nodes: () => Promise<Node[]>;
  /** The pods, for their labels (PodMetrics carry them, so label selectors work). */
  pods: () => Promise<Pod[]>;
  /** GET <kubelet>/metrics/resource of a node. */
  fetch: (node: Node, signal: AbortSignal) => Promise<string>;
  /** metrics-server's --metric-resolution. */
  resolutionMs: number;
  clock: Clock;
  logger: Logger;
}

interface Series {
  prev?: ResourcePoint;
  cur: ResourcePoint;
  /** The node whose kubelet reported it. */
  node: string;
}

/** How long one kubelet may take to answer (metrics-server's --kubelet-request-timeout is 10 s). */
const KUBELET_TIMEOUT_MS = 10_000;

/**
 * metrics-server inside the API server: every resolution period it scrapes
 * each node's `/metrics/resource`, keeps the last two points of every node
 * and container, and turns them into NodeMetrics and PodMetrics (CPU as the
 * rate between the two points, memory as the last working set). A pod is
 * reported once every one of its containers has two points.
 */
export class MetricsScraper {
  private readonly series = new Map<string, Series>();
  private current: MetricsSnapshot = { revision: 1, nodes: [], pods: [] };

  constructor(private readonly opts: MetricsScraperOptions) {}

  get snapshot(): MetricsSnapshot {
    return this.current;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.scrapeOnce(signal);
      } catch (err) {
        if (!signal.aborted) this.opts.logger.debug('metrics scrape failed', { error: err instanceof Error ? err.message : String(err) });
      }
      await this.opts.clock.sleep(this.opts.resolutionMs, signal).catch(() => undefined);
    }
  }

  async scrapeOnce(signal: AbortSignal): Promise<void> {
    const nodes = await this.opts.nodes();
    const seen = new Set<string>();
    // a kubelet that did not answer this time keeps its last points, so one slow answer does not blank its pods
    const failed = new Set<string>();
    const timeout = AbortSignal.any([signal, AbortSignal.timeout(KUBELET_TIMEOUT_MS)]);
    await Promise.all(nodes.map(async (node) => {
      const name = node.metadata?.name ?? '';
      let text: string;
      try {
        text = await this.opts.fetch(node, timeout);
      } catch (err) {
        this.opts.logger.debug('scraping a kubelet failed', { node: name, error: err instanceof Error ? err.message : String(err) });
        failed.add(name);
        return;
      }
      const scrape = decodeResourceMetrics(text, this.opts.clock.now());
      if (scrape.node) this.record(`node/${name}`, name, scrape.node, seen);
      for (const [key, point] of scrape.containers) this.record(`container/${key}`, name, point, seen);
    }));
    for (const [key, s] of this.series) if (!seen.has(key) && !failed.has(s.node)) this.series.delete(key);
    // the pods are read only for their containers' series: a cluster of kubelets reporting none (simulated nodes) lists none
    let containers = false;
    for (const key of this.series.keys()) if ((containers = key.startsWith('container/'))) break;
    this.current = this.build(nodes, containers ? await this.opts.pods() : []);
  }

  private record(key: string, node: string, point: ResourcePoint, seen: Set<string>): void {
    seen.add(key);
    const s = this.series.get(key);
    if (!s) this.series.set(key, { cur: point, node });
    else if (point.timestampMs > s.cur.timestampMs) this.series.set(key, { prev: s.cur, cur: point, node });
  }

  private build(nodes: Node[], pods: Pod[]): MetricsSnapshot {
    const now = new Date(this.opts.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    const out: MetricsSnapshot = { revision: this.current.revision + 1, nodes: [], pods: [] };
    for (const node of nodes) {
      const name = node.metadata?.name ?? '';
      const s = this.series.get(`node/${name}`);
      const rate = s && cpuRate(s.prev, s.cur);
      if (!s || rate === undefined) continue;
      out.nodes.push({
        kind: 'NodeMetrics', apiVersion: 'metrics.k8s.io/v1beta1',
        metadata: { name, creationTimestamp: now, ...(node.metadata?.labels ? { labels: { ...node.metadata.labels } } : {}) },
        timestamp: isoSeconds(s.cur.timestampMs), window: goDuration(s.cur.timestampMs - s.prev!.timestampMs),
        usage: usage(rate, s.cur.memoryBytes),
      });
    }
    const byPod = new Map<string, { key: string; s: Series }[]>();
    for (const [key, s] of this.series) {
      if (!key.startsWith('container/')) continue;
      const [ns, pod] = key.slice('container/'.length).split('/');
      byPod.set(`${ns}/${pod}`, [...(byPod.get(`${ns}/${pod}`) ?? []), { key, s }]);
    }
    for (const pod of pods) {
      const ns = pod.metadata?.namespace ?? '';
      const name = pod.metadata?.name ?? '';
      const containers = byPod.get(`${ns}/${name}`);
      if (!containers) continue;
      const rates = containers.map(({ s }) => cpuRate(s.prev, s.cur));
      if (rates.some((r) => r === undefined)) continue;
      const latest = containers.reduce((a, b) => (b.s.cur.timestampMs > a.s.cur.timestampMs ? b : a));
      out.pods.push({
        kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1',
        metadata: { name, namespace: ns, creationTimestamp: now, ...(pod.metadata?.labels ? { labels: { ...pod.metadata.labels } } : {}) },
        timestamp: isoSeconds(latest.s.cur.timestampMs), window: goDuration(latest.s.cur.timestampMs - latest.s.prev!.timestampMs),
        containers: containers
          .map(({ key, s }, i) => ({ name: key.split('/').slice(3).join('/'), usage: usage(rates[i]!, s.cur.memoryBytes) }))
          .sort((a, b) => a.name.localeCompare(b.name)),
      });
    }
    return out;
  }
}

function usage(cores: number, memoryBytes: number): { cpu: string; memory: string } {
  return { cpu: Quantity.fromNanos(BigInt(Math.round(cores * 1e9))).toString(), memory: Quantity.fromValue(Math.round(memoryBytes), 'BinarySI').toString() };
}

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** A duration as Go's time.Duration prints it (`15.002s`, `1m0.5s`): metav1.Duration's JSON. */
export function goDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = (ms % 60_000) / 1000;
  const s = `${Number(seconds.toFixed(3))}s`;
  return minutes > 0 ? `${minutes}m${s}` : s;
}
