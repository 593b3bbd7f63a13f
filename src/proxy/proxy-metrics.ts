import { exponentialBuckets, type Histogram } from '../base/metrics/registry.js';
import type { Counter, Gauge, MetricsRegistry } from '../base/metrics/registry.js';

/** kube-proxy's metric families (names as upstream's `kubeproxy_` subsystem). */
export interface ProxyMetrics {
  syncDuration: Histogram;
  lastSync: Gauge;
  lastQueued: Gauge;
  serviceChanges: Counter;
  endpointChanges: Counter;
  networkProgramming: Histogram;
}

export function proxyMetrics(registry: MetricsRegistry): ProxyMetrics {
  return {
    syncDuration: registry.histogram('kubeproxy_sync_proxy_rules_duration_seconds', 'SyncProxyRules latency in seconds', [], exponentialBuckets(0.001, 2, 15)),
    lastSync: registry.gauge('kubeproxy_sync_proxy_rules_last_timestamp_seconds', 'The last time proxy rules were successfully synced'),
    lastQueued: registry.gauge('kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds', 'The last time a sync of proxy rules was queued'),
    serviceChanges: registry.counter('kubeproxy_sync_proxy_rules_service_changes_total', 'Cumulative proxy rules Service changes'),
    endpointChanges: registry.counter('kubeproxy_sync_proxy_rules_endpoint_changes_total', 'Cumulative proxy rules Endpoint changes'),
    networkProgramming: registry.histogram('kubeproxy_network_programming_duration_seconds', 'In Cluster Network Programming Latency in seconds', [], exponentialBuckets(0.001, 2, 20)),
  };
}
