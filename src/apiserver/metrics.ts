import { exponentialBuckets, MetricsRegistry } from '../base/metrics/registry.js';

/** The API server's Prometheus metrics, named as upstream's where they exist. */
export class ApiServerMetrics {
  readonly registry = new MetricsRegistry();
  readonly contentType = this.registry.contentType;
  private readonly requests = this.registry.counter('apiserver_request_total', 'Counter of apiserver requests broken out by verb, resource and HTTP response code.', ['verb', 'resource', 'code']);
  private readonly latency = this.registry.histogram(
    'apiserver_request_duration_seconds',
    'Response latency distribution in seconds for each verb and resource.',
    ['verb', 'resource'],
    exponentialBuckets(0.001, 2, 15),
  );
  private readonly storage = this.registry.histogram(
    'apiserver_storage_request_duration_seconds',
    'Storage operation latency in seconds by operation.',
    ['operation'],
    exponentialBuckets(0.0001, 2, 16),
  );
  private readonly watches = this.registry.gauge('apiserver_longrunning_requests', 'Number of open watch requests by resource.', ['verb', 'resource']);
  private readonly watchesTotal = this.registry.counter('apiserver_watch_requests_total', 'Watch requests started by resource.', ['resource']);

  observeRequest(verb: string, resource: string, code: number, seconds: number): void {
    const v = verb.toUpperCase();
    this.requests.inc({ verb: v, resource, code: String(code) });
    if (verb !== 'watch') this.latency.observe({ verb: v, resource }, seconds);
  }

  observeStorage = (op: string, seconds: number): void => {
    this.storage.observe({ operation: op }, seconds);
  };

  /** Counts an open watch; the returned function ends it. */
  watchStarted = (resource: string): (() => void) => {
    this.watches.inc({ verb: 'WATCH', resource });
    this.watchesTotal.inc({ resource });
    return () => this.watches.dec({ verb: 'WATCH', resource });
  };

  private readonly residentMemory = this.registry.gauge('process_resident_memory_bytes', 'Resident memory size in bytes.');
  private readonly heapUsed = this.registry.gauge('nodejs_heap_size_used_bytes', 'Process heap size used from Node.js in bytes.');

  render(): Promise<string> {
    const mem = process.memoryUsage();
    this.residentMemory.set({}, mem.rss);
    this.heapUsed.set({}, mem.heapUsed);
    return this.registry.render();
  }
}
