import { mkdir, readFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { bootstrapCluster } from '../apiserver/bootstrap.js';
import { runCompaction } from '../apiserver/compaction.js';
import { runEventExpiry } from '../apiserver/event-ttl.js';
import { defaultServingHosts, ensurePki, issueClientCertificate, writeKubeconfig, ADMIN_USER } from '../apiserver/pki/index.js';
import { ApiServer } from '../apiserver/server.js';
import type { Logger } from '../machinery/logger.js';
import { DEFAULT_MAX_OBJECT_BYTES, DEFAULT_QUOTA_BYTES, SqliteStorage } from '../storage/sqlite/index.js';
import { runSpaceRecovery } from '../apiserver/space-recovery.js';
import { EtcdStorage, EtcdUsageError, parseEtcdEndpoints } from '../storage/etcd/index.js';
import { Cacher } from '../storage/cacher/cacher.js';
import type { Storage } from '../storage/storage.js';
import { parseFlags, UsageError, type FlagSpec } from './flags.js';
import { builtinAdmissionPlugins, RESOURCE_QUOTA_PLUGIN, WEBHOOK_ADMISSION_PLUGINS, type AdmissionPluginConfigs } from '../apiserver/admission/plugins.js';
import { AdmissionConfigError, loadAdmissionConfiguration } from '../apiserver/admission/admission-configuration.js';
import { parsePodSecurityConfiguration, PodSecurityConfigError } from '../apiserver/admission/pod-security/pod-security-configuration.js';
import { AuthorizerChain } from '../apiserver/authorization/authorizer-chain.js';
import {
  AUTHORIZATION_MODES,
  AuthorizationModeError,
  authorizersFor,
  DEFAULT_AUTHORIZATION_MODES,
  parseAuthorizationModes,
} from '../apiserver/authorization/authorization-modes.js';
import { NodeGraph } from '../apiserver/authorization/node/node-graph-cache.js';
import { RbacCache } from '../apiserver/authorization/rbac/rbac-cache.js';
import { RbacEscalationPrevention } from '../apiserver/authorization/rbac/escalation-admission.js';
import { reviewHandlers } from '../apiserver/reviews/index.js';
import { tokenRequest } from '../apiserver/reviews/token-request.js';
import { tokenReview } from '../apiserver/reviews/token-review.js';
import { X509Authenticator } from '../apiserver/authentication/x509.js';
import { BootstrapTokenAuthenticator } from '../apiserver/authentication/bootstrap-token.js';
import { CertificateApproval, CertificateSigning } from '../apiserver/admission/certificates.js';
import { ServiceAccountAdmission } from '../apiserver/admission/service-account.js';
import { CredentialsThenAnonymous } from '../apiserver/authentication/fail-on-error-union.js';
import { ServiceAccountTokenAuthenticator } from '../apiserver/authentication/service-account-token.js';
import { TokenFileAuthenticator, TokenFileError } from '../apiserver/authentication/token-file.js';
import { ANONYMOUS_USER, SYSTEM_UNAUTHENTICATED } from '../apiserver/authentication/user-info.js';
import { ensureServiceAccountKey } from '../apiserver/serviceaccount/signing-key.js';
import { ServiceAccountTokens } from '../apiserver/serviceaccount/service-account-tokens.js';
import { jwks, openIdConfiguration } from '../apiserver/serviceaccount/oidc-discovery.js';
import type { ServingLimits } from '../apiserver/filters/serving-limits.js';
import { InvalidDurationError, parseDuration } from '../machinery/duration.js';
import { WriteCauses } from '../apiserver/trace/write-causes.js';
import { configureTracing } from '../trace/tracing.js';
import { TRACING_FLAGS, tracingFromFlags } from './tracing-flags.js';
import { REQUEST_HEADER_FLAGS, requestHeaderFromFlags } from './request-header-flags.js';
import { RequestHeaderAuthenticator } from '../apiserver/authentication/request-header.js';
import { AuditLogPathError, auditFromOptions, type AuditSetup } from '../apiserver/audit/audit-log-options.js';
import { AuditPolicyError } from '../apiserver/audit/policy.js';

export const APISERVER_FLAGS = {
  'data-dir': { type: 'string', default: './.skiff', description: 'directory for the database, certificates and kubeconfig' },
  'bind-address': { type: 'string', default: '0.0.0.0', description: 'address to serve HTTPS on' },
  port: { type: 'string', default: '6443', description: 'HTTPS port (0 picks a free one)' },
  'advertise-address': { type: 'string', default: '', description: 'address other components and pods reach the API server at' },
  storage: { type: 'string', default: 'sqlite', description: 'storage backend: sqlite (in the data dir) or etcd://host:port[,host:port]' },
  'service-cluster-ip-range': { type: 'string', default: '10.96.0.0/12', description: 'CIDR for Service cluster IPs' },
  'service-node-port-range': { type: 'string', default: '30000-32767', description: 'port range for NodePort Services' },
  'compaction-interval': { type: 'string', default: '300', description: 'seconds between storage compactions (0: never)' },
  'watch-bookmark-interval': { type: 'string', default: '60', description: 'seconds between watch bookmarks (upstream: about a minute)' },
  'event-ttl': { type: 'string', default: '3600', description: 'seconds events are kept after their last update' },
  'etcd-cafile': { type: 'string', default: '', description: 'CA bundle to verify etcd servers (enables TLS)' },
  'etcd-certfile': { type: 'string', default: '', description: 'client certificate for etcd' },
  'etcd-keyfile': { type: 'string', default: '', description: 'client key for etcd' },
  'watch-cache': { type: 'string', default: 'true', description: 'serve lists and watches from the watch cache (--watch-cache=false: straight from storage)' },
  'anonymous-auth': { type: 'string', default: 'true', description: 'requests without credentials are system:anonymous (false: 401)' },
  'token-auth-file': { type: 'string', default: '', description: 'static bearer tokens, CSV lines token,user,uid[,"group1,group2"]' },
  'service-account-issuer': { type: 'string', default: 'https://kubernetes.default.svc.cluster.local', description: 'issuer (and API audience) of service-account tokens' },
  'authorization-mode': { type: 'string', default: DEFAULT_AUTHORIZATION_MODES, description: `ordered authorizers: ${AUTHORIZATION_MODES.join(', ')} (system:masters may always do everything)` },
  'enable-priority-and-fairness': { type: 'string', default: 'true', description: 'API Priority and Fairness (FlowSchemas, priority levels, fair queuing) instead of the max-in-flight limits' },
  'max-requests-inflight': { type: 'string', default: '400', description: 'read-only requests served at once; more get 429 (0: no limit; system:masters is never refused). With APF: summed with the next to give the server\'s seats' },
  'max-mutating-requests-inflight': { type: 'string', default: '200', description: 'mutating requests served at once; more get 429 (0: no limit)' },
  'max-watches': { type: 'string', default: '20000', description: 'watches open at once; more get 429 (0: no limit)' },
  'request-timeout': { type: 'string', default: '1m0s', description: 'non-long-running requests answer 504 after this long (Go duration)' },
  'max-request-bytes': { type: 'string', default: String(3 * 1024 * 1024), description: 'largest request body accepted (413 beyond)' },
  'admission-control-config-file': { type: 'string', default: '', description: 'AdmissionConfiguration (apiserver.config.k8s.io/v1) with plugin configurations; skiff reads PodSecurity\'s PodSecurityConfiguration (defaults, exemptions)' },
  'audit-policy-file': { type: 'string', default: '', description: 'audit.k8s.io/v1 Policy deciding what is audited at which level (without one nothing is audited)' },
  'audit-log-path': { type: 'string', default: '', description: "write audit.k8s.io/v1 Events as JSON lines to this file ('-': standard output)" },
  'audit-log-maxsize': { type: 'string', default: '0', description: 'megabytes of audit log before it is rotated (0: 100)' },
  'audit-log-maxbackup': { type: 'string', default: '0', description: 'rotated audit log files kept (0: all)' },
  'audit-log-maxage': { type: 'string', default: '0', description: 'days rotated audit log files are kept, by the time in their name (0: forever)' },
  ...REQUEST_HEADER_FLAGS,
  'metric-resolution': { type: 'string', default: '15s', description: "how often the built-in metrics.k8s.io scrapes each kubelet's /metrics/resource (metrics-server's flag; 0s: the group is not served)" },
  ...TRACING_FLAGS,
  'trace-store-max-writes': { type: 'string', default: '100000', description: 'writes whose causing span the API server remembers at most (oldest evicted first)' },
  'storage-max-object-bytes': { type: 'string', default: String(DEFAULT_MAX_OBJECT_BYTES), description: "SQLite: largest stored object, as etcd's --max-request-bytes" },
  'storage-quota-bytes': { type: 'string', default: String(DEFAULT_QUOTA_BYTES), description: "SQLite: database size that raises the NOSPACE alarm, as etcd's --quota-backend-bytes (0: none)" },
} satisfies FlagSpec;

function limitFlag<F extends Record<string, string>>(flags: F, name: keyof F & string): number {
  const n = Number(flags[name]);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`invalid --${name} ${JSON.stringify(flags[name])}: a whole number >= 0`);
  return n;
}

/** --metric-resolution as milliseconds; undefined turns the built-in metrics API off. */
function metricResolution(flags: Record<string, string>): number | undefined {
  let ms: number;
  try {
    ms = parseDuration(flags['metric-resolution']);
  } catch (err) {
    if (err instanceof InvalidDurationError) throw new UsageError(`invalid --metric-resolution: ${err.message}`);
    throw err;
  }
  return ms > 0 ? ms : undefined;
}

function servingLimits(flags: Record<string, string>): Partial<ServingLimits> {
  let requestTimeoutMs: number;
  try {
    requestTimeoutMs = parseDuration(flags['request-timeout']);
  } catch (err) {
    if (err instanceof InvalidDurationError) throw new UsageError(`invalid --request-timeout: ${err.message}`);
    throw err;
  }
  if (!['true', 'false'].includes(flags['enable-priority-and-fairness'])) throw new UsageError(`--enable-priority-and-fairness must be true or false, not ${JSON.stringify(flags['enable-priority-and-fairness'])}`);
  return {
    priorityAndFairness: flags['enable-priority-and-fairness'] === 'true',
    maxRequestsInflight: limitFlag(flags, 'max-requests-inflight'),
    maxMutatingRequestsInflight: limitFlag(flags, 'max-mutating-requests-inflight'),
    maxWatches: limitFlag(flags, 'max-watches'),
    requestTimeoutMs,
    maxRequestBytes: limitFlag(flags, 'max-request-bytes'),
  };
}

export interface RunningApiServer {
  port: number;
  kubeconfigPath: string;
  server: ApiServer;
  /**
   * A kubeconfig in the data dir for a component's own identity: a client
   * certificate from the cluster CA with the user as CN and the groups as O
   * (as kubeadm writes scheduler.conf, controller-manager.conf, kubelet.conf).
   */
  credentials(name: string, user: string, groups?: readonly string[]): Promise<string>;
  stop(): Promise<void>;
}

/** `--admission-control-config-file`: the plugin configurations skiff understands (a bad file stops the server, as upstream). */
function admissionConfigsFromFile(file: string): AdmissionPluginConfigs {
  if (!file) return {};
  try {
    const plugins = loadAdmissionConfiguration(file);
    const podSecurity = plugins.get('PodSecurity');
    return podSecurity === undefined ? {} : { podSecurity: parsePodSecurityConfiguration(podSecurity) };
  } catch (err) {
    if (err instanceof AdmissionConfigError) throw new UsageError(`--admission-control-config-file: ${err.message}`);
    if (err instanceof PodSecurityConfigError) throw new UsageError(`--admission-control-config-file: couldn't init admission plugin "PodSecurity": ${err.message}`);
    throw err;
  }
}

function firstExternalIPv4(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

type StorageFlags = { 'etcd-cafile': string; 'etcd-certfile': string; 'etcd-keyfile': string; 'storage-max-object-bytes': string; 'storage-quota-bytes': string };

async function openStorage(spec: string, dataDir: string, observe: (op: string, s: number) => void, tlsFlags: StorageFlags): Promise<Storage> {
  if (spec === 'sqlite' || spec === '') {
    const maxObjectBytes = limitFlag(tlsFlags, 'storage-max-object-bytes');
    const quotaBytes = limitFlag(tlsFlags, 'storage-quota-bytes');
    return SqliteStorage.open({ path: join(dataDir, 'state.db'), observe, maxObjectBytes, quotaBytes });
  }
  if (spec.startsWith('etcd://')) {
    const read = async (path: string) => (path ? await readFile(path) : undefined);
    const [ca, cert, key] = await Promise.all([read(tlsFlags['etcd-cafile']), read(tlsFlags['etcd-certfile']), read(tlsFlags['etcd-keyfile'])]);
    const secure = Boolean(ca || cert);
    let endpoints: string[];
    try {
      endpoints = parseEtcdEndpoints(spec, secure);
    } catch (err) {
      if (err instanceof EtcdUsageError) throw new UsageError(err.message);
      throw err;
    }
    return new EtcdStorage({ endpoints, observe, ...(secure ? { tls: { ca, cert, key } } : {}) });
  }
  throw new UsageError(`unsupported --storage ${JSON.stringify(spec)} (supported: sqlite, etcd://host:port[,host:port])`);
}

/** Starts an API server from flags; resolves once it is serving. */
export async function startApiServer(args: string[], logger: Logger): Promise<RunningApiServer> {
  const flags = parseFlags(args, APISERVER_FLAGS);
  const tracing = tracingFromFlags(flags);
  await configureTracing(tracing);
  const maxWrites = Number(flags['trace-store-max-writes']);
  if (!(maxWrites >= 0)) throw new UsageError(`--trace-store-max-writes must be a count ≥ 0, not ${JSON.stringify(flags['trace-store-max-writes'])}`);
  const writeCauses = new WriteCauses({ maxWrites, maxAgeMs: tracing.store?.maxAgeMs });
  const dataDir = resolve(flags['data-dir']);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const advertise = flags['advertise-address'] || firstExternalIPv4();
  const pki = await ensurePki(dataDir, { hosts: [...defaultServingHosts(), advertise, '10.96.0.1'] });
  const limits = servingLimits(flags);
  const { requestHeader, proxyClient } = await requestHeaderFromFlags(flags, pki);
  const [lo, hi] = flags['service-node-port-range'].split('-').map(Number);
  if (!(lo > 0 && hi >= lo)) throw new UsageError(`invalid --service-node-port-range ${flags['service-node-port-range']}`);

  // storage latencies go to the server's metrics, which exist only once the server does
  let observe = (_op: string, _seconds: number): void => {};
  let onStorageWatch = (_resource: string, _delta: 1 | -1): void => {};
  const backend = await openStorage(flags.storage, dataDir, (op, s) => observe(op, s), flags);
  if (!['true', 'false'].includes(flags['watch-cache'])) throw new UsageError(`--watch-cache must be true or false, not ${JSON.stringify(flags['watch-cache'])}`);
  const storage = flags['watch-cache'] === 'true' ? new Cacher(backend, { onStorageWatch: (r, d) => onStorageWatch(r, d) }) : backend;
  let modes: string[];
  try {
    modes = parseAuthorizationModes(flags['authorization-mode']);
  } catch (err) {
    if (err instanceof AuthorizationModeError) throw new UsageError(`--authorization-mode: ${err.message}`);
    throw err;
  }
  if (!['true', 'false'].includes(flags['anonymous-auth'])) throw new UsageError(`--anonymous-auth must be true or false, not ${JSON.stringify(flags['anonymous-auth'])}`);
  let tokenFile: TokenFileAuthenticator | undefined;
  try {
    tokenFile = flags['token-auth-file'] ? TokenFileAuthenticator.fromFile(flags['token-auth-file']) : undefined;
  } catch (err) {
    if (err instanceof TokenFileError || (err as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`--token-auth-file: ${(err as Error).message}`);
    throw err;
  }
  let audit: AuditSetup;
  try {
    audit = auditFromOptions(
      {
        policyFile: flags['audit-policy-file'],
        logPath: flags['audit-log-path'],
        maxSizeMB: limitFlag(flags, 'audit-log-maxsize'),
        maxBackups: limitFlag(flags, 'audit-log-maxbackup'),
        maxAgeDays: limitFlag(flags, 'audit-log-maxage'),
      },
      logger,
    );
  } catch (err) {
    if (err instanceof AuditPolicyError) throw new UsageError(`--audit-policy-file: ${err.message}`);
    if (err instanceof AuditLogPathError) throw new UsageError(`--audit-log-path: ${err.message}`);
    throw err;
  }
  const admissionConfigs = admissionConfigsFromFile(flags['admission-control-config-file']);
  const issuer = flags['service-account-issuer'];
  const tokens = new ServiceAccountTokens(await ensureServiceAccountKey(join(dataDir, 'pki')), issuer, [issuer]);
  const anonymous = flags['anonymous-auth'] === 'true' ? { name: 'anonymous', authenticate: async () => ({ user: { name: ANONYMOUS_USER, groups: [SYSTEM_UNAUTHENTICATED] } }) } : undefined;
  // the RBAC objects in memory, fed by watches once the server runs
  const rbac = new RbacCache();
  // the Node authorizer's graph of pods and volumes, fed by watches once the server runs
  const nodeGraph = new NodeGraph();
  const authorizers = authorizersFor(modes, { rbac, nodeGraph });
  const authorizer = new AuthorizerChain(authorizers);
  const server = new ApiServer({
    storage,
    tls: { caPem: pki.ca.certPem, certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, extraClientCaPems: [requestHeader.clientCaPem] },
    aggregator: { proxyClient },
    kubeletClient: { certPem: pki.admin.certPem, keyPem: pki.admin.keyPem },
    metricResolutionMs: metricResolution(flags),
    bindAddress: flags['bind-address'],
    port: Number(flags.port),
    logger,
    writeCauses,
    serviceClusterIpRange: flags['service-cluster-ip-range'],
    nodePortRange: [lo, hi],
    watch: { bookmarkIntervalMs: Number(flags['watch-bookmark-interval']) * 1000 },
    limits,
    pipeline: {
      audit: audit.auditor,
      authenticators: (deps) => {
        // as upstream: the request-header authenticator first, then client certificates of the cluster CA only
        const credentials = [new RequestHeaderAuthenticator(requestHeader), new X509Authenticator({ clientCaPem: pki.ca.certPem }), ...(tokenFile ? [tokenFile] : []), new BootstrapTokenAuthenticator(deps.registry), new ServiceAccountTokenAuthenticator(tokens, deps.registry)];
        return [new CredentialsThenAnonymous(credentials, anonymous)];
      },
      authorizers: () => authorizers,
      admission: [
        ...builtinAdmissionPlugins(admissionConfigs),
        // upstream's ServiceAccount admission (pods run as a service account, with a projected token); not in skiff/testing's server, which runs no service-account controller
        (deps) => new ServiceAccountAdmission(() => deps.registry.lookup('', 'v1', 'serviceaccounts')!),
        () => new RbacEscalationPrevention(rbac, () => authorizer),
        () => new CertificateApproval(() => authorizer),
        () => new CertificateSigning(() => authorizer),
        // upstream runs the webhooks after every built-in plugin, and ResourceQuota last
        ...WEBHOOK_ADMISSION_PLUGINS,
        RESOURCE_QUOTA_PLUGIN,
      ],
    },
    reviews: ({ registry }) =>
      reviewHandlers({
        authorizer,
        authorizers,
        tokenReview: tokenReview([...(tokenFile ? [tokenFile] : []), new BootstrapTokenAuthenticator(registry), new ServiceAccountTokenAuthenticator(tokens, registry)]),
        tokenRequest: tokenRequest(tokens, registry),
      }),
    documents: new Map([
      ['/.well-known/openid-configuration', () => openIdConfiguration(tokens)],
      ['/openid/v1/jwks', () => jwks(tokens)],
    ]),
  });
  observe = server.metrics.observeStorage;
  const storageWatches = server.metrics.registry.gauge('apiserver_storage_watches', 'Watches open on the storage, by resource key prefix (one per cached resource).', ['resource']);
  onStorageWatch = (resource, delta) => storageWatches.inc({ resource }, delta);
  const port = await server.start();
  await bootstrapCluster(server.apiRegistry, { advertiseAddress: advertise, port, logger, caPem: pki.ca.certPem, requestHeader });
  const rbacWatch = new AbortController();
  rbac.start(server.apiRegistry, logger, rbacWatch.signal);
  if (modes.includes('Node')) nodeGraph.start(server.apiRegistry, logger, rbacWatch.signal);
  await Promise.all([rbac.waitForSync(), nodeGraph.waitForSync()]);

  const kubeconfigPath = join(dataDir, 'admin.kubeconfig');
  await writeKubeconfig(kubeconfigPath, {
    server: `https://127.0.0.1:${port}`,
    caPem: pki.ca.certPem,
    certPem: pki.admin.certPem,
    keyPem: pki.admin.keyPem,
    user: ADMIN_USER,
  });

  const compaction = new AbortController();
  const intervalSeconds = Number(flags['compaction-interval']);
  const compacting = intervalSeconds > 0 ? runCompaction(storage, { intervalMs: intervalSeconds * 1000, logger, signal: compaction.signal }) : Promise.resolve();
  const ttlMs = Number(flags['event-ttl']) * 1000;
  // on etcd an operator reclaims space (`skiff storage defrag`), as upstream: members are shared and stall while defragmenting
  const recovering = runSpaceRecovery(storage, { intervalMs: 5000, logger, signal: compaction.signal, reclaim: !flags.storage.startsWith('etcd://') });
  const expiring = runEventExpiry(server.apiRegistry, { ttlMs, intervalMs: Math.min(60_000, Math.max(1000, ttlMs / 10)), logger, signal: compaction.signal });
  logger.info('API server serving', { address: flags['bind-address'], port, dataDir, storage: flags.storage });
  const s = server;
  return {
    port,
    kubeconfigPath,
    server,
    async credentials(name, user, groups = []) {
      const path = join(dataDir, `${name}.kubeconfig`);
      const pair = await issueClientCertificate(pki, { commonName: user, organizations: groups });
      await writeKubeconfig(path, { server: `https://127.0.0.1:${port}`, caPem: pki.ca.certPem, certPem: pair.certPem, keyPem: pair.keyPem, user });
      return path;
    },
    async stop() {
      compaction.abort();
      rbacWatch.abort();
      await Promise.all([compacting, expiring, recovering, rbac.stopped(), nodeGraph.stopped()]);
      await s.stop();
      await audit.close();
      await storage.close();
    },
  };
}
