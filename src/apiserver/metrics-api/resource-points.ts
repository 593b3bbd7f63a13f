import { parsePrometheusText } from './prometheus-text.js';

/** A cumulative CPU reading and a memory working set at one moment. */
export interface ResourcePoint {
  timestampMs: number;
  cpuSeconds: number;
  memoryBytes: number;
  /** The container's start time (s since the epoch), when known: a different one means a restart. */
  startTime?: number;
}

/** What one scrape of a kubelet's /metrics/resource says. */
export interface NodeScrape {
  node?: ResourcePoint;
  /** Keyed by `namespace/pod/container`. */
  containers: Map<string, ResourcePoint & { namespace: string; pod: string; container: string }>;
}

/** Reads node and container points from /metrics/resource text, as metrics-server's decoder does; partial points are dropped. */
export function decodeResourceMetrics(text: string, scrapedAtMs: number): NodeScrape {
  const node: Partial<ResourcePoint> = {};
  const containers = new Map<string, Partial<ResourcePoint> & { namespace: string; pod: string; container: string }>();
  const container = (l: Record<string, string>) => {
    const key = `${l.namespace}/${l.pod}/${l.container}`;
    let c = containers.get(key);
    if (!c) containers.set(key, (c = { namespace: l.namespace ?? '', pod: l.pod ?? '', container: l.container ?? '' }));
    return c;
  };
  for (const s of parsePrometheusText(text)) {
    const ts = s.timestampMs ?? scrapedAtMs;
    switch (s.name) {
      case 'node_cpu_usage_seconds_total':
        node.cpuSeconds = s.value;
        node.timestampMs = ts;
        break;
      case 'node_memory_working_set_bytes':
        node.memoryBytes = s.value;
        break;
      case 'container_cpu_usage_seconds_total': {
        const c = container(s.labels);
        c.cpuSeconds = s.value;
        c.timestampMs = ts;
        break;
      }
      case 'container_memory_working_set_bytes':
        container(s.labels).memoryBytes = s.value;
        break;
      case 'container_start_time_seconds':
        container(s.labels).startTime = s.value;
        break;
    }
  }
  const complete = (p: Partial<ResourcePoint>): p is ResourcePoint => p.cpuSeconds !== undefined && p.memoryBytes !== undefined && p.timestampMs !== undefined;
  const out: NodeScrape = { containers: new Map() };
  if (complete(node)) out.node = node;
  for (const [k, c] of containers) if (complete(c)) out.containers.set(k, c);
  return out;
}

/** CPU in cores between two points of the same series, or undefined when they cannot give one (a restart, a reset, no time between). */
export function cpuRate(prev: ResourcePoint | undefined, cur: ResourcePoint): number | undefined {
  if (!prev || cur.timestampMs <= prev.timestampMs || cur.cpuSeconds < prev.cpuSeconds) return undefined;
  if (prev.startTime !== undefined && cur.startTime !== undefined && prev.startTime !== cur.startTime) return undefined;
  return (cur.cpuSeconds - prev.cpuSeconds) / ((cur.timestampMs - prev.timestampMs) / 1000);
}
