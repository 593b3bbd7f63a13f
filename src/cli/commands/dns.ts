import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import { DaemonServer } from '../../base/http/daemon-server.js';
import { MetricsRegistry } from '../../base/metrics/registry.js';
import { readResolvConf } from '../../base/resolv-conf.js';
import { Client, loadKubeconfig } from '../../client/rest/index.js';
import { AnswerTracer } from '../../dns/answer-tracer.js';
import { DnsIndex } from '../../dns/dns-index.js';
import { dnsMetrics } from '../../dns/dns-metrics.js';
import { DnsServer } from '../../dns/dns-server.js';
import { KubeDnsService } from '../../dns/kube-dns-service.js';
import { RecordsSync } from '../../dns/records-sync.js';
import { UpstreamForwarder } from '../../dns/upstream-forwarder.js';
import type { ComponentCommand, FlagValues } from '../command.js';
import { componentKubeconfig, healthFlags, healthPort } from '../component-runtime.js';
import { UsageError } from '../flags.js';

/** CoreDNS's metrics port, which the kube-dns Service names `metrics`. */
const DEFAULT_METRICS_PORT = 9153;
const DEFAULT_CLUSTER_IP = '10.96.0.10';

/** The first non-loopback IPv4 address of this host (what the kubelet reports as InternalIP), else 127.0.0.1. */
function hostAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

function numberFlag(flags: FlagValues, name: string, min: number, max: number): number {
  const v = Number(flags[name]);
  if (!Number.isInteger(v) || v < min || v > max) throw new UsageError(`--${name} must be a whole number in [${min}, ${max}]`);
  return v;
}

/** Upstream resolvers: the flag's list, `none`, or the host's resolv.conf nameservers (never this server itself). */
function upstreams(flags: FlagValues, self: string[]): string[] {
  const raw = String(flags.upstream ?? '');
  if (raw === 'none') return [];
  const list = raw ? raw.split(',').map((s) => s.trim()).filter(Boolean) : readResolvConf(String(flags['resolv-conf'])).nameservers;
  return list.filter((u) => !self.includes(u));
}

export const command: ComponentCommand = {
  name: 'dns',
  summary: 'Run the cluster DNS: Service and Pod records under the cluster domain (UDP and TCP), behind the kube-dns Service.',
  serverOrder: 55,
  flags: {
    kubeconfig: { type: 'string', default: '', description: 'kubeconfig of the API server (inside skiff server: one for system:coredns)' },
    'cluster-domain': { type: 'string', default: 'cluster.local', description: 'the zone answered from Services and EndpointSlices' },
    'dns-address': { type: 'string', default: '', description: 'address to serve DNS on (default: --advertise-address; a specific address, so UDP answers leave from the address asked)' },
    'advertise-address': { type: 'string', default: '', description: 'address published as the kube-dns endpoint (default: the first non-loopback IPv4)' },
    'dns-port': { type: 'string', default: '', description: 'UDP and TCP port (default 53; inside skiff server a free one, published in the kube-dns EndpointSlice)' },
    'dns-cluster-ip': { type: 'string', default: '', description: `cluster IP of the kube-dns Service when creating it (default ${DEFAULT_CLUSTER_IP}; inside skiff server the tenth address of the service range)` },
    ttl: { type: 'string', default: '5', description: 'TTL of answers in seconds (CoreDNS\'s kubernetes plugin default; kubeadm\'s Corefile says 30)' },
    upstream: { type: 'string', default: '', description: 'comma-separated resolvers for other names (ip or ip:port; default: the nameservers of --resolv-conf; none: answer SERVFAIL)' },
    'resolv-conf': { type: 'string', default: '/etc/resolv.conf', description: 'where the default upstream resolvers come from' },
    'no-publish': { type: 'boolean', default: false, description: 'do not create the kube-dns Service nor publish this server\'s endpoint' },
    ...healthFlags(DEFAULT_METRICS_PORT),
  },

  async run(flags, ctx) {
    const logger = ctx.logger;
    const str = (k: string) => String(flags[k] ?? '');
    const kubeconfig = await componentKubeconfig(flags, ctx, { file: 'coredns', user: 'system:coredns' });
    const zone = str('cluster-domain').replace(/\.$/, '').toLowerCase();
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(zone)) throw new UsageError(`--cluster-domain ${JSON.stringify(zone)} is not a DNS domain`);
    const advertise = str('advertise-address') || hostAddress();
    const address = str('dns-address') || advertise;
    if (!isIP(address) || !isIP(advertise)) throw new UsageError('--dns-address and --advertise-address must be IP addresses');
    const port = str('dns-port') === '' ? (ctx.server ? 0 : 53) : numberFlag(flags, 'dns-port', 0, 65535);
    const clusterIP = str('dns-cluster-ip') || ctx.server?.clusterDNS || DEFAULT_CLUSTER_IP;
    const ttl = numberFlag(flags, 'ttl', 0, 3600);

    const client = new Client(loadKubeconfig(kubeconfig), { component: 'coredns', qps: 50, burst: 100 });
    const registry = new MetricsRegistry();
    const metrics = dnsMetrics(registry);
    const index = new DnsIndex();
    const tracer = new AnswerTracer();
    const sync = new RecordsSync({ client, index, logger, tracer });
    const self = [address, `${address}:${port}`, clusterIP, `${clusterIP}:53`];
    const forwarder = new UpstreamForwarder({ upstreams: upstreams(flags, self), metrics });
    const dns = new DnsServer({
      index, metrics, forwarder,
      records: { zone, ttl, serial: () => sync.serial(), nameserverIPs: [clusterIP] },
      onServiceAnswer: (key, qname, qtype) => tracer.answered(key, qname, qtype),
    });
    const health = new DaemonServer({ bindAddress: str('bind-address'), port: healthPort(flags, ctx, DEFAULT_METRICS_PORT), metrics: registry, readiness: { 'dns-records': () => sync.ready() } });
    const hp = await health.start();
    try {
      const dnsPort = await dns.listen(address, port);
      logger.info('cluster DNS serving', { zone, address, port: dnsPort, clusterIP, healthPort: hp, upstreams: forwarder.configured ? 'from ' + (str('upstream') || str('resolv-conf')) : 'none' });
      const nodeName = hostname().toLowerCase();
      const publish = flags['no-publish'] === true ? undefined : new KubeDnsService({
        client, logger, clusterIP,
        endpoint: { ip: advertise, dnsPort, metricsPort: str('bind-address').startsWith('127.') ? undefined : hp },
        sliceName: `kube-dns-${nodeName}`.replace(/[^a-z0-9.-]/g, '-').slice(0, 63).replace(/-+$/, ''),
      });
      try {
        await Promise.all([sync.run(ctx.signal), publish?.run(ctx.signal)]);
      } finally {
        await dns.close();
      }
    } finally {
      await health.stop();
      client.close();
    }
  },
};
