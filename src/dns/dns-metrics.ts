import { exponentialBuckets, type Counter, type Histogram, type MetricsRegistry } from '../base/metrics/registry.js';

/** The DNS server's metric families, named as CoreDNS names them, so its dashboards read them. */
export interface DnsMetrics {
  requests: Counter;
  responses: Counter;
  duration: Histogram;
  cacheHits: Counter;
  cacheMisses: Counter;
  forwardRequests: Counter;
  forwardFailures: Counter;
}

export function dnsMetrics(registry: MetricsRegistry): DnsMetrics {
  return {
    requests: registry.counter('coredns_dns_requests_total', 'Counter of DNS requests made per zone, protocol and family.', ['proto', 'type']),
    responses: registry.counter('coredns_dns_responses_total', 'Counter of response status codes.', ['rcode']),
    duration: registry.histogram('coredns_dns_request_duration_seconds', 'Histogram of the time (in seconds) each request took.', ['proto'], exponentialBuckets(0.00025, 2, 16)),
    cacheHits: registry.counter('coredns_cache_hits_total', 'The count of cache hits.'),
    cacheMisses: registry.counter('coredns_cache_misses_total', 'The count of cache misses.'),
    forwardRequests: registry.counter('coredns_forward_requests_total', 'Counter of requests made per upstream.', ['to']),
    forwardFailures: registry.counter('coredns_forward_responses_failed_total', 'Counter of requests no upstream answered in time.'),
  };
}
