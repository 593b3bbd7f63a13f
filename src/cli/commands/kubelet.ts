import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Client, loadKubeconfig } from '../../client/rest/index.js';
import { DaemonServer } from '../../base/http/daemon-server.js';
import { MetricsRegistry } from '../../base/metrics/registry.js';
import { Kubelet } from '../../kubelet/kubelet.js';
import { addResourceLists, parseResourceList, parseTaints } from '../../kubelet/node/node-status.js';
import { loadRegistries, RegistriesConfigError } from '../../kubelet/containerd/registries-config.js';
import { selectRuntime, type RuntimeChoice } from '../../kubelet/runtime/select-runtime.js';
import type { CommandContext, ComponentCommand, FlagValues } from '../command.js';
import { BootstrapError, bootstrapClientCertificate, CLIENT_CERT_FILE } from '../../kubelet/certificate/bootstrap.js';
import { ClientCertificateManager, readCertificateKeyFile } from '../../kubelet/certificate/certificate-manager.js';
import { certificateInfo } from '../../kubelet/certificate/rotation-deadline.js';
import type { RestConfig } from '../../client/rest/index.js';
import type { Logger } from '../../machinery/logger.js';
import { mkdir } from 'node:fs/promises';
import { NODE_DAEMON_OOM_SCORE_ADJ } from '../../base/oom-score.js';
import { applyOomScoreAdj } from '../oom-score-flag.js';
import { UsageError } from '../flags.js';
import { readResolvConf } from '../../base/resolv-conf.js';
import { securityFlags } from '../kubelet-security-flags.js';
import { Quantity } from '../../machinery/quantity.js';
import { parseDuration } from '../../machinery/duration.js';
import { DEFAULT_EVICTION_HARD, EvictionConfigError, parseThresholdConfig } from '../../kubelet/eviction/threshold-config.js';
import type { KubeletEvictionOptions } from '../../kubelet/kubelet.js';

function labels(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of s.split(',').map((p) => p.trim()).filter(Boolean)) {
    const i = part.indexOf('=');
    if (i <= 0) throw new UsageError(`invalid node label ${JSON.stringify(part)}, want key=value`);
    out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}

/** The kubeconfig's CA as PEM text, if it names one. */
function leaseSeconds(s: string): number {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`invalid --node-lease-duration-seconds ${JSON.stringify(s)}, want a whole number of seconds >= 1`);
  return n;
}

function caOf(ca: string | Buffer | undefined): string | undefined {
  return ca === undefined ? undefined : ca.toString();
}

/** `--server URL --token T`: a node client certificate through a bootstrap-token CSR (kubeadm join); returns its kubeconfig. */
async function joinWithToken(flags: FlagValues, nodeName: string, rootDir: string, ctx: CommandContext): Promise<string> {
  const str = (k: string) => String(flags[k] ?? '');
  if (!str('server')) throw new UsageError('--token needs --server, the API server to join');
  try {
    return await bootstrapClientCertificate({
      server: str('server').replace(/\/+$/, ''),
      token: str('token'),
      caCertHash: str('ca-cert-hash') || undefined,
      caPem: str('certificate-authority') ? readFileSync(str('certificate-authority'), 'utf8') : undefined,
      nodeName,
      certDir: str('cert-dir') || join(rootDir, 'pki'),
      logger: ctx.logger,
      signal: ctx.signal,
    });
  } catch (err) {
    if (err instanceof BootstrapError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * With --rotate-certificates, a kubelet whose kubeconfig holds a client
 * certificate for `system:node:<name>` gets a certificate manager: it starts
 * from the newer of that certificate and `<cert-dir>/kubelet-client-current.pem`
 * (an earlier rotation's) and renews it through CSRs. Other identities (an
 * admin kubeconfig) are left alone.
 */
async function certificateManager(config: RestConfig, nodeName: string, certDir: string, logger: Logger): Promise<ClientCertificateManager | undefined> {
  if (!config.cert || !config.key) return undefined;
  const subject = `CN=system:node:${nodeName}`;
  const ours = (pem: string): boolean => {
    try {
      const info = certificateInfo(pem);
      return info.subject.split('\n').includes(subject) && info.notAfter > Date.now();
    } catch {
      return false;
    }
  };
  const fromKubeconfig = { certPem: config.cert.toString(), keyPem: config.key.toString() };
  if (!ours(fromKubeconfig.certPem)) return undefined;
  const certPath = join(certDir, CLIENT_CERT_FILE);
  const stored = await readCertificateKeyFile(certPath);
  const initial = stored && ours(stored.certPem) && certificateInfo(stored.certPem).notAfter > certificateInfo(fromKubeconfig.certPem).notAfter ? stored : fromKubeconfig;
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  return new ClientCertificateManager({ nodeName, initial, certPath, logger });
}

export const command: ComponentCommand = {
  name: 'kubelet',
  summary: 'Run the node agent: register the node, run its pods (containerd over CRI, or host processes), report their status.',
  serverOrder: 40,
  flags: {
    'oom-score-adj': { type: 'string', default: String(NODE_DAEMON_OOM_SCORE_ADJ), description: 'the oom_score_adj of this process, in [-1000, 1000] (upstream: -999)' },
    kubeconfig: { type: 'string', default: '', description: 'kubeconfig to reach the API server (inside skiff server: one for system:node:<node-name>)' },
    'node-name': { type: 'string', default: '', description: 'name of this node (default: the hostname)' },
    'node-ip': { type: 'string', default: '', description: 'address reported as InternalIP (default: first non-loopback IPv4)' },
    'root-dir': { type: 'string', default: '', description: 'directory for pod volumes and logs (default: <data-dir>/kubelet or /var/lib/skiff-kubelet)' },
    port: { type: 'string', default: '', description: 'HTTPS port of the kubelet server (default 10250; 0 inside skiff server)' },
    address: { type: 'string', default: '0.0.0.0', description: 'address the kubelet server listens on' },
    'health-port': { type: 'string', default: '', description: 'healthz/metrics port (default 10248; 0 inside skiff server)' },
    'node-labels': { type: 'string', default: '', description: 'extra node labels, key=value,...' },
    'register-with-taints': { type: 'string', default: '', description: 'taints to register with, key=value:Effect,...' },
    'system-reserved': { type: 'string', default: '', description: 'resources reserved for the system, e.g. cpu=100m,memory=100Mi' },
    'kube-reserved': { type: 'string', default: '', description: 'resources reserved for Kubernetes daemons' },
    'max-pods': { type: 'string', default: '110', description: 'pods this node accepts' },
    'container-log-max-size': { type: 'string', default: '10Mi', description: 'size a container\'s log file reaches before it is rotated' },
    'container-log-max-files': { type: 'string', default: '5', description: 'log files kept per container, the live one included (at least 2)' },
    'image-gc-high-threshold': { type: 'string', default: '85', description: 'percent of the image filesystem in use at which unused images are removed (100: never)' },
    'image-gc-low-threshold': { type: 'string', default: '80', description: 'percent of the image filesystem in use that image garbage collection frees down to' },
    'eviction-hard': { type: 'string', default: DEFAULT_EVICTION_HARD, description: 'hard eviction thresholds, signal<quantity or signal<percent%,... (signals: memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available); naming any replaces all of the default' },
    'eviction-soft': { type: 'string', default: '', description: 'soft eviction thresholds (same syntax), each needing a grace period' },
    'eviction-soft-grace-period': { type: 'string', default: '', description: 'how long a soft threshold must hold before pods are evicted, signal=duration,... (e.g. memory.available=1m30s)' },
    'eviction-minimum-reclaim': { type: 'string', default: '', description: 'how much beyond a threshold must be free again before it is resolved, signal=quantity|percent%,...' },
    'eviction-max-pod-grace-period': { type: 'string', default: '0', description: 'grace period (seconds) of pods evicted for a soft threshold (0: their own terminationGracePeriodSeconds)' },
    'eviction-pressure-transition-period': { type: 'string', default: '5m0s', description: 'how long a pressure condition stays True after its threshold was last met' },
    'housekeeping-interval': { type: 'string', default: '10s', description: 'how often the eviction manager observes its signals' },
    'image-minimum-gc-age': { type: 'string', default: '2m', description: 'minimum age of an unused image before it may be garbage collected' },
    'pod-cidr': { type: 'string', default: '', description: 'pod CIDR of this node (default: the one the node IPAM controller assigns)' },
    'client-ca-file': { type: 'string', default: '', description: 'CA whose client certificates may call the kubelet server (default: the CA of the kubeconfig)' },
    'pod-manifest-path': { type: 'string', default: '', description: 'directory (or file) of static pod manifests (default <root-dir>/manifests)' },
    'node-lease-duration-seconds': { type: 'string', default: '40', description: 'duration of the node Lease; the kubelet renews it every quarter of that (upstream: 40 s, renewed every 10 s)' },
    'container-runtime': { type: 'string', default: 'auto', description: 'auto (containerd when root and installed, else host processes), containerd or process' },
    'container-runtime-endpoint': { type: 'string', default: '', description: 'use an existing CRI runtime instead of supervising containerd, e.g. unix:///run/containerd/containerd.sock' },
    registries: { type: 'string', default: '', description: 'registry mirrors, auth and TLS in k3s registries.yaml format, for the supervised containerd' },
    server: { type: 'string', default: '', description: 'with --token: the API server to join, e.g. https://10.0.0.1:6443' },
    token: { type: 'string', default: '', description: 'join with this bootstrap token (`skiff token create`): get a node client certificate through a CSR, as kubeadm join' },
    'ca-cert-hash': { type: 'string', default: '', description: 'with --token: sha256:<hex> of the cluster CA public key, checked against kube-public/cluster-info' },
    'certificate-authority': { type: 'string', default: '', description: 'with --token: the cluster CA file instead of --ca-cert-hash' },
    'cert-dir': { type: 'string', default: '', description: 'where the kubelet keeps its client certificate (and, joined, its kubeconfig) (default <root-dir>/pki)' },
    'rotate-certificates': { type: 'boolean', default: true, description: 'renew the system:node client certificate through CSRs at 70-90% of its life (upstream\'s rotateCertificates, on as kubeadm sets it)' },
    'cluster-dns': { type: 'string', default: '', description: 'comma-separated DNS server IPs for ClusterFirst pods (inside skiff server: the kube-dns Service\'s)' },
    'cluster-domain': { type: 'string', default: 'cluster.local', description: 'the cluster\'s DNS domain, searched by pods after their namespace\'s' },
    'resolv-conf': { type: 'string', default: '/etc/resolv.conf', description: 'the node\'s resolver configuration, for dnsPolicy Default (and the search domains ClusterFirst pods add)' },
    'allowed-unsafe-sysctls': { type: 'string', default: '', description: 'comma-separated unsafe sysctls or patterns (`kernel.msg*`) pods may set beyond the safe set' },
    'pod-max-pids': { type: 'string', default: '-1', description: 'the most processes each pod may run, through its pod cgroup (-1: unlimited)' },
    'cgroups-per-qos': { type: 'string', default: 'true', description: 'true: each pod gets a cgroup under kubepods/<qos class> (containerd only); false: the runtime\'s default' },
    'cgroup-driver': { type: 'string', default: '', description: 'cgroupfs or systemd, as the container runtime uses (default: systemd when systemd runs the machine)' },
    'seccomp-default': { type: 'boolean', default: false, description: 'containers without a seccompProfile run under RuntimeDefault instead of Unconfined' },
    'keep-pods': { type: 'boolean', default: false, description: 'inside skiff server: leave pods running on stop, for the next start to adopt (standalone kubelets always do)' },
  },
  async run(flags, ctx) {
    const str = (k: string) => String(flags[k] ?? '');
    applyOomScoreAdj(String(flags['oom-score-adj'] ?? NODE_DAEMON_OOM_SCORE_ADJ), ctx.logger);
    const inServer = ctx.server !== undefined;
    const nodeName = (str('node-name') || hostname()).toLowerCase();
    const rootDir = str('root-dir') || (ctx.server ? join(ctx.server.dataDir, 'kubelet') : '/var/lib/skiff-kubelet');
    // inside skiff server the kubelet is system:node:<name> in system:nodes, as a joined one
    const kubeconfig = str('token')
      ? await joinWithToken(flags, nodeName, rootDir, ctx)
      : str('kubeconfig') || (await ctx.server?.credentials('kubelet', `system:node:${nodeName}`, ['system:nodes']));
    if (!kubeconfig) throw new UsageError('--kubeconfig (or --server and --token to join) is required outside skiff server');
    const port = Number(str('port') || (inServer ? 0 : 10250));
    const healthPort = Number(str('health-port') || (inServer ? 0 : 10248));
    const restConfig = loadKubeconfig(kubeconfig);
    const certManager = flags['rotate-certificates'] === false ? undefined : await certificateManager(restConfig, nodeName, str('cert-dir') || join(rootDir, 'pki'), ctx.logger);
    const client = new Client(certManager ? { ...restConfig, certificateSource: () => certManager.current() } : restConfig, { component: 'kubelet', qps: 50, burst: 100 });
    const choice = str('container-runtime');
    if (!['auto', 'containerd', 'process'].includes(choice)) throw new UsageError(`invalid --container-runtime ${JSON.stringify(choice)}, want auto, containerd or process`);
    const endpoint = str('container-runtime-endpoint');
    if (endpoint && !endpoint.startsWith('unix://')) throw new UsageError(`invalid --container-runtime-endpoint ${JSON.stringify(endpoint)}, want unix:///path/to.sock`);
    const podCIDR = str('pod-cidr') || undefined;
    let registries;
    try {
      registries = str('registries') ? loadRegistries(str('registries')) : undefined;
    } catch (err) {
      if (err instanceof RegistriesConfigError) throw new UsageError(`--registries ${err.message}`);
      throw err;
    }
    // the runtime's records live under the root dir, so a kubelet restarted on it adopts the pods still running
    const selected = await selectRuntime({ choice: choice as RuntimeChoice, endpoint: endpoint || undefined, rootDir, podCIDR, registries, hostIP: str('node-ip') || undefined, logger: ctx.logger });
    const runtime = selected.runtime;
    const security = securityFlags(flags, rootDir, selected.kind === 'cri');
    const metrics = new MetricsRegistry();
    const health = new DaemonServer({ bindAddress: '127.0.0.1', port: healthPort, metrics });
    const hp = await health.start();
    ctx.logger.info('kubelet starting', { node: nodeName, rootDir, healthPort: hp, runtime: `${runtime.version().runtimeName} ${runtime.version().runtimeVersion}` });
    // callers of the kubelet server (the API server) must hold a certificate from the cluster CA
    const clientCA = str('client-ca-file') ? readFileSync(str('client-ca-file'), 'utf8') : caOf(loadKubeconfig(kubeconfig).ca);
    // as the issue asks of upstream's kubelet: no client CA, no server, rather than one that answers anyone
    if (!clientCA) throw new UsageError('the kubelet API needs a client CA: pass --client-ca-file (or a kubeconfig that names the cluster CA)');
    const kubelet = new Kubelet({
      clientCA,
      podManifestPath: str('pod-manifest-path') || undefined,
      client,
      runtime,
      configurePodNetwork: selected.configurePodNetwork,
      releaseLeakedPodIPs: selected.releaseLeakedPodIPs,
      removeStaleNetns: selected.removeStaleNetns,
      rootDir,
      port,
      bindAddress: str('address'),
      metrics,
      logger: ctx.logger,
      nodeIP: str('node-ip') || undefined,
      dns: {
        clusterDNS: (str('cluster-dns') || ctx.server?.clusterDNS || '').split(',').map((s) => s.trim()).filter(Boolean),
        clusterDomain: str('cluster-domain').replace(/\.$/, ''),
        host: readResolvConf(str('resolv-conf')),
      },
      leaseDurationSeconds: leaseSeconds(str('node-lease-duration-seconds')),
      ...security,
      eviction: evictionFlags(str),
      imageGC: imageGCFlags(str('image-gc-high-threshold'), str('image-gc-low-threshold'), str('image-minimum-gc-age')),
      containerLogs: containerLogFlags(str('container-log-max-size'), str('container-log-max-files')),
      node: {
        nodeName,
        labels: labels(str('node-labels')),
        taints: parseTaints(str('register-with-taints')),
        reserved: addResourceLists(parseResourceList(str('system-reserved')), parseResourceList(str('kube-reserved'))),
        maxPods: Number(str('max-pods')),
        podCIDR,
        readyMessage: selected.fallback ?? (selected.kind === 'process' && process.getuid?.() !== 0 ? 'process runtime without root: no namespaces, cgroups or volume mounts' : undefined),
      },
    });
    const stopRotating = new AbortController();
    const rotating = certManager?.run(client, AbortSignal.any([ctx.signal, stopRotating.signal]));
    try {
      await kubelet.run(ctx.signal);
    } finally {
      stopRotating.abort();
      await rotating;
      // upstream's kubelet leaves pods running when it stops; a dev cluster's Ctrl-C is expected to stop them
      await selected.close(inServer && flags['keep-pods'] !== true);
      await health.stop();
      client.close();
    }
  },
};

/** --container-log-max-size and --container-log-max-files, checked as upstream's kubelet config validation. */
function containerLogFlags(size: string, files: string): { maxSize: number; maxFiles: number } {
  let maxSize: number;
  try {
    maxSize = Quantity.parse(size).value();
  } catch {
    throw new UsageError(`invalid --container-log-max-size ${JSON.stringify(size)}, want a quantity such as 10Mi`);
  }
  if (!(maxSize > 0)) throw new UsageError(`invalid --container-log-max-size ${JSON.stringify(size)}, want a positive quantity`);
  const maxFiles = Number(files);
  if (!Number.isInteger(maxFiles) || maxFiles < 2) throw new UsageError(`invalid configuration: containerLogMaxFiles (--container-log-max-files) ${files} must be equal to or greater than 2`);
  return { maxSize, maxFiles };
}

/** The image GC flags, checked as upstream's kubelet config validation words it. */
function imageGCFlags(high: string, low: string, minAge: string): { highThresholdPercent: number; lowThresholdPercent: number; minAgeMs: number } {
  const h = Number(high);
  const l = Number(low);
  if (!Number.isInteger(h) || h < 0 || h > 100) throw new UsageError(`invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) ${high} must be between 0 and 100, inclusive`);
  if (!Number.isInteger(l) || l < 0 || l > 100) throw new UsageError(`invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be between 0 and 100, inclusive`);
  if (l >= h) throw new UsageError(`invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${high}`);
  let minAgeMs: number;
  try {
    minAgeMs = parseDuration(minAge);
  } catch {
    throw new UsageError(`invalid --image-minimum-gc-age ${JSON.stringify(minAge)}, want a duration such as 2m`);
  }
  return { highThresholdPercent: h, lowThresholdPercent: l, minAgeMs };
}

/** The eviction flags; a bad one is a usage error with upstream's words. */
function evictionFlags(str: (k: string) => string): KubeletEvictionOptions {
  let thresholds;
  try {
    thresholds = parseThresholdConfig({ hard: str('eviction-hard'), soft: str('eviction-soft'), softGracePeriod: str('eviction-soft-grace-period'), minimumReclaim: str('eviction-minimum-reclaim') });
  } catch (err) {
    if (err instanceof EvictionConfigError) throw new UsageError(`invalid eviction flags: ${err.message}`);
    throw err;
  }
  const duration = (flag: string): number => {
    try {
      const ms = parseDuration(str(flag));
      if (ms < 0) throw new RangeError('negative');
      return ms;
    } catch {
      throw new UsageError(`invalid --${flag} ${JSON.stringify(str(flag))}, want a duration such as 5m0s`);
    }
  };
  const maxGrace = Number(str('eviction-max-pod-grace-period'));
  if (!Number.isInteger(maxGrace) || maxGrace < 0) throw new UsageError(`invalid --eviction-max-pod-grace-period ${JSON.stringify(str('eviction-max-pod-grace-period'))}, want whole seconds >= 0`);
  const interval = duration('housekeeping-interval');
  if (interval <= 0) throw new UsageError('invalid --housekeeping-interval: must be greater than 0');
  return { thresholds, pressureTransitionPeriodMs: duration('eviction-pressure-transition-period'), maxPodGracePeriodSeconds: maxGrace, monitoringIntervalMs: interval };
}
