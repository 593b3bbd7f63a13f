import type { IncomingMessage, ServerResponse } from 'node:http';
import { setMaxListeners } from 'node:events';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { ApiError, badRequest, internalError, methodNotAllowed, notFound } from '../machinery/api-error.js';
import type { Logger } from '../machinery/logger.js';
import { serveMetrics } from '../base/http/health.js';
import { closeGracefully, listen } from '../base/http/listen.js';
import type { Storage } from '../storage/storage.js';
import { StorageError } from '../storage/errors.js';
import { storageErrorToApiError } from './registry/storage-errors.js';
import { ApiRegistry } from './api-registry.js';
import { registerBuiltinResources } from './registry/builtin-resources.js';
import { runCrdController } from './apiextensions/crd-controller.js';
import { CustomResourceServing } from './apiextensions/custom-resource-serving.js';
import { WebhookConfigurations } from './admission/webhook/webhook-configurations.js';
import { serveDiscovery, type DiscoverySource } from './discovery/serve-discovery.js';
import { Aggregator } from './aggregator/aggregator.js';
import { handleDelete, handleDeleteCollection } from './handlers/delete.js';
import { handlePatch } from './handlers/patch.js';
import { handleGet, handleList } from './handlers/read.js';
import type { RequestScope } from './handlers/scope.js';
import { handleEviction } from './handlers/eviction.js';
import { handleBinding, handleScale } from './handlers/subresources.js';
import { handleFinalize } from './handlers/finalize.js';
import { registerMetricsApi } from './metrics-api/metrics-api.js';
import type { MetricsScraper } from './metrics-api/metrics-scraper.js';
import { KubeletProxy, rejectUpgrade, type KubeletClientTls } from './kubelet-proxy/kubelet-proxy.js';
import { PROXIED_RESOURCES, ResourceProxy } from './proxy-subresources/resource-proxy.js';
import { handleWatch, type WatchSettings } from './handlers/watch.js';
import { handleCreate, handleUpdate } from './handlers/write.js';
import { drainRequest, setBodyLimit } from './http/body.js';
import { isLongRunning } from './filters/long-running.js';
import { MaxInFlightFilter, tooManyRequests } from './filters/max-in-flight.js';
import { requestTimedOut, withRequestTimeout, type Deadline } from './filters/request-timeout.js';
import { DEFAULT_SERVING_LIMITS, type ServingLimits } from './filters/serving-limits.js';
import { closedSignal, holdRefusedConnection, releaseWhenSent, type Release } from './filters/concurrency-limit.js';
import { PriorityAndFairness } from './flowcontrol/priority-and-fairness.js';
import { runFlowControlConfig } from './flowcontrol/flowcontrol-config.js';
import { negotiate, writeBody, writeError } from './http/respond.js';
import { ApiServerMetrics } from './metrics.js';
import { serveOpenApi } from './openapi/serve-openapi.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';
import { RequestPipeline, type RequestPipelineOptions } from './request-pipeline.js';
import { auditResponse } from './audit/request-audit.js';
import { reviewHandlers, type ReviewHandlers } from './reviews/index.js';
import { handleReview } from './handlers/review.js';
import type { Authorizer } from './authorization/authorizer.js';
import type { UserInfo } from './authentication/user-info.js';
import type { AdmissionAttributes } from './admission/admission.js';
import { apiVersionOf, type ResourceInfo } from '../api/resource-info.js';
import { protobufMessageFor } from '../api/protobuf/encode-protobuf-object.js';
import { versionInfo } from './version.js';
import { isUiPath, serveUi } from './ui/serve-ui.js';
import { startRequestTrace, type RequestTrace } from './trace/request-trace.js';
import { handleTraceQuery, TRACE_API_PREFIX } from './trace/trace-query.js';
import { WriteCauses } from './trace/write-causes.js';
import { realClock, type Clock } from '../base/clock.js';

export interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
  /** Further CAs whose client certificates the TLS layer accepts (the request-header CA); authenticators tell them apart. */
  extraClientCaPems?: string[];
}

export interface ApiServerOptions {
  storage: Storage;
  tls: TlsMaterial;
  bindAddress: string;
  port: number;
  logger: Logger;
  serviceClusterIpRange?: string;
  nodePortRange?: [number, number];
  watch?: Partial<WatchSettings>;
  /** Where object times (creation, deletion, managed fields, conditions) come from (default: the real clock). */
  clock?: Clock;
  /**
   * Serve metrics.k8s.io/v1beta1 built in, scraping each kubelet's
   * /metrics/resource this often (metrics-server's --metric-resolution);
   * absent, the group is not served.
   */
  metricResolutionMs?: number;
  /** The client certificate the API server presents to kubelets (logs, exec, attach, port-forward). */
  kubeletClient?: KubeletClientTls;
  /** Authenticators, authorizers and admission plugins (default: client certificates, allow authenticated, NamespaceLifecycle + Priority). */
  pipeline?: RequestPipelineOptions;
  /** The review resources (access, rules and token reviews), given the authorizer chain (default: access reviews on it). */
  reviews?: (deps: { authorizer: Authorizer; registry: ApiRegistry }) => ReviewHandlers;
  /** Extra non-resource GET paths and their JSON documents (the service-account issuer's OIDC discovery). */
  documents?: ReadonlyMap<string, () => unknown>;
  /** In-flight limits, request timeout, body size and slow-client cut-offs (default: upstream's). */
  limits?: Partial<ServingLimits>;
  /** The side store of write causes (what tracing records per resourceVersion); default a fresh one. */
  writeCauses?: WriteCauses;
  /** The built dashboard served at /ui/ (default: the package's web/dist). */
  uiDir?: string;
  /** API aggregation: the client certificate presented to extension API servers (kubeadm's front-proxy-client). */
  aggregator?: { proxyClient?: { certPem: string; keyPem: string } };
}

function parseRequestUrl(raw: string): URL {
  try {
    return raw.startsWith('/') ? new URL(`https://skiff${raw}`) : new URL(raw);
  } catch {
    throw badRequest(`invalid request URL ${JSON.stringify(raw.slice(0, 200))}`);
  }
}

/**
 * The API server: HTTPS, client-certificate authentication, discovery, and the
 * REST verbs over one RegistryStore per resource. The only component that
 * touches storage.
 */
export class ApiServer {
  readonly metrics = new ApiServerMetrics();
  private readonly registry: ApiRegistry;
  private readonly server: https.Server;
  private readonly stopping = new AbortController();
  private readonly watchSettings: WatchSettings;
  private readonly clock: Clock;
  private readonly kubelets: KubeletProxy;
  private readonly proxies: ResourceProxy;
  private readonly pipeline: RequestPipeline;
  private controllers: Promise<void> = Promise.resolve();
  private readonly reviews: ReviewHandlers;
  private readonly limits: ServingLimits;
  private readonly inFlight: MaxInFlightFilter;
  private readonly apf: PriorityAndFairness | undefined;
  private readonly causes: WriteCauses;
  private readonly storage: Storage;
  private readonly webhooks = new WebhookConfigurations();
  private readonly serving: CustomResourceServing;
  private readonly aggregator: Aggregator;
  private readonly discovery: DiscoverySource;
  private readonly metricsScraper?: MetricsScraper;

  constructor(private readonly opts: ApiServerOptions) {
    this.clock = opts.clock ?? realClock;
    this.limits = { ...DEFAULT_SERVING_LIMITS, ...opts.limits };
    const { priorityAndFairness, maxRequestsInflight, maxMutatingRequestsInflight, requestTimeoutMs } = this.limits;
    if (priorityAndFairness) {
      // APF replaces the max-in-flight limits, as upstream; the watch limit stays
      this.apf = new PriorityAndFairness({ serverConcurrencyLimit: maxRequestsInflight + maxMutatingRequestsInflight, requestWaitLimitMs: requestTimeoutMs > 0 ? requestTimeoutMs / 4 : 15_000 }, this.metrics.registry);
      this.inFlight = new MaxInFlightFilter({ ...this.limits, maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 }, this.metrics.registry);
    } else {
      this.inFlight = new MaxInFlightFilter(this.limits, this.metrics.registry);
    }
    // every open watch listens for shutdown
    setMaxListeners(0, this.stopping.signal);
    this.causes = opts.writeCauses ?? new WriteCauses();
    this.storage = opts.storage;
    this.registry = new ApiRegistry();
    registerBuiltinResources(this.registry, {
      storage: this.storage,
      network: { serviceClusterIpRange: opts.serviceClusterIpRange ?? '10.96.0.0/12', nodePortRange: opts.nodePortRange ?? [30000, 32767] },
      clock: this.clock,
    });
    this.serving = new CustomResourceServing({ registry: this.registry, storage: this.storage, clock: this.clock });
    this.aggregator = new Aggregator({ registry: this.registry, logger: opts.logger, clock: this.clock, proxyClient: opts.aggregator?.proxyClient });
    this.discovery = this.aggregator.discoverySource();
    const serving = this.serving;
    this.pipeline = new RequestPipeline({ registry: this.registry, webhooks: this.webhooks, logger: opts.logger, convert: (obj, group, version) => serving.convert(obj, group, version) }, opts.pipeline);
    this.reviews = (opts.reviews ?? ((d) => reviewHandlers({ ...d, authorizers: [] })))({ authorizer: this.pipeline.authorizer, registry: this.registry });
    this.watchSettings = {
      minRequestTimeoutSeconds: 1800,
      bookmarkIntervalMs: 60_000,
      onWatchStart: this.metrics.watchStarted,
      causes: this.causes,
      ...opts.watch,
    };
    const { headersTimeoutMs, requestReceiveTimeoutMs } = this.limits;
    this.server = https.createServer(
      {
        ca: [opts.tls.caPem, ...(opts.tls.extraClientCaPems ?? [])],
        cert: opts.tls.certPem,
        key: opts.tls.keyPem,
        requestCert: true,
        rejectUnauthorized: false,
        // slow or trickling clients are cut off: headers and the whole request each have a deadline
        headersTimeout: headersTimeoutMs,
        requestTimeout: Math.max(requestReceiveTimeoutMs, headersTimeoutMs),
        connectionsCheckingInterval: Math.max(100, Math.min(1000, headersTimeoutMs / 4)),
        // a TLS handshake that does not finish is as slow a client as any
        handshakeTimeout: Math.max(headersTimeoutMs, 1000),
      },
      (req, res) => void this.serve(req, res),
    );
    const kubeletClient = opts.kubeletClient ?? { certPem: opts.tls.certPem, keyPem: opts.tls.keyPem };
    this.kubelets = new KubeletProxy(this.registry, kubeletClient);
    if (opts.metricResolutionMs !== undefined) {
      this.metricsScraper = registerMetricsApi(this.registry, { resolutionMs: opts.metricResolutionMs, kubeletClient, clock: this.clock, logger: opts.logger });
    }
    this.proxies = new ResourceProxy(this.registry, kubeletClient, this.limits.requestTimeoutMs);
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.serveUpgrade(req, socket, head));
    this.server.keepAliveTimeout = 65_000;
  }

  get apiRegistry(): ApiRegistry {
    return this.registry;
  }

  async start(): Promise<number> {
    const port = await listen(this.server, this.opts.port, this.opts.bindAddress);
    const crds = this.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    const serving = this.serving;
    this.controllers = runCrdController({
      store: crds,
      logger: this.opts.logger,
      signal: this.stopping.signal,
      clock: this.clock,
      onChange: (crd, name) => serving.sync(crd, name),
      deleteInstances: (crd) => serving.deleteAll(crd),
    });
    this.webhooks.start(this.registry, this.opts.logger, this.stopping.signal);
    this.aggregator.start(this.stopping.signal);
    if (this.metricsScraper) {
      const scraping = this.metricsScraper.run(this.stopping.signal);
      const before = this.controllers;
      this.controllers = Promise.all([before, scraping]).then(() => undefined);
    }
    if (this.apf) {
      this.apf.run(this.stopping.signal);
      const flowControl = runFlowControlConfig({ registry: this.registry, apf: this.apf, logger: this.opts.logger, signal: this.stopping.signal });
      const crdController = this.controllers;
      this.controllers = Promise.all([crdController, flowControl]).then(() => undefined);
    }
    return port;
  }

  /** Ends watches, stops accepting, and waits for in-flight requests. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await closeGracefully(this.server, { drainMs: 5000 });
    await this.controllers;
    await this.webhooks.stopped();
    await this.aggregator.stopped();
  }

  private serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = (req.url ?? '/').split('?')[0];
    if (isUiPath(pathname)) return serveUi(req, res, pathname, this.opts.uiDir);
    return this.serveRequest(req, res, startRequestTrace(req, this.causes));
  }

  private async serveRequest(req: IncomingMessage, res: ServerResponse, trace?: RequestTrace): Promise<void> {
    const started = process.hrtime.bigint();
    let info: RequestInfo | undefined;
    let timedOut = false;
    let failure: unknown;
    this.pipeline.audit.init(req, res);
    try {
      const url = parseRequestUrl(req.url ?? '/');
      const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
      const request = parseRequestInfo(req.method ?? 'GET', path, url.searchParams);
      info = request;
      trace?.describe(request);
      setBodyLimit(req, this.limits.maxRequestBytes);
      await withRequestTimeout(
        isLongRunning(request) ? 0 : this.limits.requestTimeoutMs,
        async (deadline) => {
          const authenticate = () => this.pipeline.authenticate(req, path, { info: request, res });
          const user = await (trace ? trace.stage('authentication', 'authentication', authenticate) : authenticate());
          trace?.setUser(user.name);
          // as upstream's chain: APF or the in-flight limits after authentication (system:masters is exempt), before authorization
          const release = await this.admit(request, user, res, deadline);
          try {
            // the trace query API authorizes a `get` of the object it shows, not its own path
            if (path.startsWith(TRACE_API_PREFIX)) return await this.serveTraceQuery(req, res, path, url.searchParams, user);
            const authorize = () => this.pipeline.authorize(request, user, req);
            await (trace ? trace.stage('authorization', 'authorization', authorize) : authorize());
            // a group/version another server serves (an APIService with a service) goes there, ahead of anything local
            const remote = this.aggregator.route(path);
            if (remote) return await this.aggregator.serve(remote, req, res, user, AbortSignal.any([deadline.signal, this.stopping.signal, closedSignal(res)]));
            if (request.isResourceRequest) await this.serveResource(req, res, request, url.searchParams, user, deadline, trace);
            else await this.serveNonResource(req, res, path, url.searchParams);
          } finally {
            // a slot is held until the answer has been handed to the OS, as a Go handler's writes block until then;
            // releasing at return would make a cheap request occupy no slot at all on a single-threaded server
            releaseWhenSent(res, release);
          }
        },
        () => {
          timedOut = true;
          if (res.headersSent) res.destroy();
          else writeError(res, requestTimedOut());
        },
        (err) => this.opts.logger.debug('request failed after its timeout', { method: req.method, url: req.url, error: err instanceof Error ? err.message : String(err) }),
      );
    } catch (err) {
      failure = err;
      if (timedOut) return;
      const apiErr = this.toApiError(err, req);
      // answer only once the client has finished sending, or it may see a reset instead of the Status
      if (!(await drainRequest(req))) res.setHeader('Connection', 'close');
      // a refusal by the limits (APF, in-flight): the connection is read again once its Retry-After has passed
      if (apiErr === tooManyRequests()) holdRefusedConnection(res, (apiErr.details?.retryAfterSeconds ?? 1) * 1000);
      writeError(res, apiErr);
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const resource = info?.resource ? (info.subresource ? `${info.resource}/${info.subresource}` : info.resource) : '';
      this.metrics.observeRequest(info?.verb ?? (req.method ?? '').toLowerCase(), resource, res.statusCode, seconds);
      trace?.finish(res.statusCode, res.statusCode >= 500 ? failure : undefined);
      // an error that is not an API or storage error is upstream's panic
      const panicked = failure !== undefined && !(failure instanceof ApiError) && !(failure instanceof StorageError);
      this.pipeline.audit.complete(req, res.statusCode, panicked ? failure : undefined);
    }
  }

  /**
   * A seat for the request (APF) or an in-flight slot, or 429. Watches are
   * counted against --max-watches while open but hold an APF seat only while
   * they start, as upstream; other long-running requests are not limited.
   */
  private async admit(info: RequestInfo, user: UserInfo, res: ServerResponse, deadline: Deadline): Promise<Release> {
    const slot = this.inFlight.admit(info, user);
    if (!this.apf || (isLongRunning(info) && info.verb !== 'watch')) return slot;
    try {
      // the signal is made only for a request that has to wait: most do not, and a flood's must be cheap
      const release = await this.apf.admit({ info, user }, () => AbortSignal.any([deadline.signal, closedSignal(res)]), (c) => {
        if (c.flowSchema.metadata?.uid) res.setHeader('X-Kubernetes-PF-FlowSchema-UID', c.flowSchema.metadata.uid);
        if (c.priorityLevel.metadata?.uid) res.setHeader('X-Kubernetes-PF-PriorityLevel-UID', c.priorityLevel.metadata.uid);
      });
      if (info.verb !== 'watch') return () => (release(), slot());
      release();
      return slot;
    } catch (err) {
      slot();
      throw err;
    }
  }

  /** The trace query API: authorized as a `get` of the object whose journeys it shows. */
  private serveTraceQuery(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, user: UserInfo): Promise<void> {
    return handleTraceQuery(
      { registry: this.registry, causes: this.causes, authorize: (info) => this.pipeline.authorize(info, user) },
      req.method ?? 'GET',
      path,
      query,
      res,
    );
  }

  /** Upgrade requests (exec, attach, port-forward) bypass the request handler: authenticate and splice to the kubelet. */
  private async serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    try {
      const url = parseRequestUrl(req.url ?? '/');
      const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
      this.pipeline.audit.init(req, undefined);
      const user = await this.pipeline.authenticate(req, url.pathname, { info });
      await this.pipeline.authorize(info, user, req);
      const proxied = info.subresource === 'proxy' && PROXIED_RESOURCES.has(info.resource);
      const streamed = info.resource === 'pods' && ['exec', 'attach', 'portforward'].includes(info.subresource);
      if (!info.isResourceRequest || info.group !== '' || !(proxied || streamed)) {
        throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      }
      const store = this.registry.lookup('', 'v1', info.resource)!;
      await this.pipeline.admission.admit(connectAttributes(info, store.info, user));
      await this.pipeline.admission.validate(connectAttributes(info, store.info, user));
      if (proxied) await this.proxies.upgrade(info, req, socket, head);
      else await this.kubelets.upgrade(info.namespace, info.name, info.subresource, req, socket, head);
      this.pipeline.audit.upgraded(req, socket);
    } catch (err) {
      const apiErr = this.toApiError(err, req);
      auditResponse(req, apiErr.toStatus());
      this.pipeline.audit.complete(req, apiErr.code);
      rejectUpgrade(socket, apiErr);
    }
  }

  private toApiError(err: unknown, req: IncomingMessage): ApiError {
    if (err instanceof ApiError) return err;
    if (err instanceof StorageError) return storageErrorToApiError(err, { verb: 'other' });
    this.opts.logger.error('request failed', { method: req.method, url: req.url, error: err instanceof Error ? err.stack : String(err) });
    return internalError(err instanceof Error ? err.message : String(err));
  }

  private async serveNonResource(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(`the server does not allow this method on the requested resource`);
    switch (path) {
      case '/healthz':
      case '/livez':
      case '/readyz':
        return this.serveHealth(res, path, query);
      case '/healthz/ping':
      case '/livez/ping':
      case '/readyz/ping':
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
        res.end('ok');
        return;
      case '/version':
        return writeBody(res, 200, versionInfo());
      case '/metrics':
        return serveMetrics(res, this.metrics);
    }
    if (serveDiscovery(req, res, path, this.discovery)) return;
    if (serveOpenApi(req, res, path, this.registry)) return;
    const document = this.opts.documents?.get(path);
    if (document) return writeBody(res, 200, document());
    throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  }

  private async serveHealth(res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const checks: [string, () => Promise<void>][] = [
      ['ping', async () => {}],
      ['etcd', async () => void (await this.opts.storage.currentRevision())],
    ];
    if (path === '/readyz') {
      // a store under an alarm (NOSPACE, a lost file) answers reads but takes no writes: not ready
      checks.push(['etcd-readiness', async () => ((await this.opts.storage.alarms?.())?.length ? Promise.reject(new Error('storage alarm')) : undefined)]);
      checks.push(['shutdown', async () => (this.stopping.signal.aborted ? Promise.reject(new Error('shutting down')) : undefined)]);
    }
    const lines: string[] = [];
    let ok = true;
    for (const [name, check] of checks) {
      try {
        await withTimeout(check(), HEALTH_CHECK_TIMEOUT_MS);
        lines.push(`[+]${name} ok`);
      } catch {
        ok = false;
        lines.push(`[-]${name} failed: reason withheld`);
      }
    }
    const verbose = query.has('verbose');
    const body = verbose || !ok ? `${lines.join('\n')}\n${path.slice(1)} check ${ok ? 'passed' : 'failed'}\n` : 'ok';
    res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end(body);
  }

  private async serveResource(
    req: IncomingMessage,
    res: ServerResponse,
    info: RequestInfo,
    query: URLSearchParams,
    user: UserInfo,
    deadline: Deadline,
    trace: RequestTrace | undefined,
  ): Promise<void> {
    const store = this.registry.lookup(info.group, info.version, info.resource);
    if (!store) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    const resource = store.info;
    if ((!resource.namespaced && info.namespace) || (resource.namespaced && !info.namespace && info.name)) {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    }
    if (resource.namespaced && !info.namespace && info.verb === 'create') {
      throw methodNotAllowed('the server does not allow this method on the requested resource');
    }
    // the request's signal (and its close listener) is made when a handler first asks for it: most never do, and a
    // cheap request should stay cheap
    let onClose: (() => void) | undefined;
    let signal: AbortSignal | undefined;
    const requestSignal = (): AbortSignal => {
      if (signal) return signal;
      const clientGone = new AbortController();
      if (res.closed || res.destroyed) clientGone.abort();
      else res.once('close', (onClose = () => clientGone.abort()));
      // only long-running requests need to hear about shutdown; the rest finish on their own
      signal = info.verb === 'watch' || info.subresource === 'proxy' ? AbortSignal.any([clientGone.signal, this.stopping.signal]) : AbortSignal.any([clientGone.signal, deadline.signal]);
      return signal;
    };
    const rendering = negotiate(req.headers.accept, { allowTable: true, allowProtobuf: protobufMessageFor(apiVersionOf(resource), resource.kind) !== undefined });
    const scope: RequestScope = {
      req,
      res,
      info,
      query,
      resource,
      store,
      registry: this.registry,
      get signal() {
        return requestSignal();
      },
      now: () => new Date(this.clock.now()),
      rendering,
      user,
      admission: this.pipeline.admission,
      trace,
    };
    try {
      await this.dispatch(scope);
    } finally {
      if (onClose) res.off('close', onClose);
    }
  }

  private async dispatch(scope: RequestScope): Promise<void> {
    const { info, resource } = scope;
    const sub = info.subresource;
    if (sub && !resource.subresources.includes(sub)) {
      throw notFound({ group: resource.group, resource: `${resource.resource}/${sub}` }, info.name);
    }
    const notAllowed = () => methodNotAllowed('the server does not allow this method on the requested resource');
    const review = this.reviews.get(`${resource.group}/${resource.resource}${sub ? `/${sub}` : ''}`);
    if (review) {
      if (info.verb !== 'create') throw notAllowed();
      return handleReview(scope, review);
    }
    switch (sub) {
      case '':
        // read-only resources (metrics) answer 405 to the verbs they do not serve, as upstream
        if (!resource.verbs.includes(info.verb)) throw notAllowed();
        switch (info.verb) {
          case 'get':
            return handleGet(scope);
          case 'list':
            return handleList(scope, this.causes);
          case 'watch':
            return handleWatch(scope, this.watchSettings);
          case 'create':
            if (info.name) throw notAllowed();
            return handleCreate(scope);
          case 'update':
            if (!info.name) throw notAllowed();
            return handleUpdate(scope);
          case 'patch':
            if (!info.name) throw notAllowed();
            return handlePatch(scope);
          case 'delete':
            return handleDelete(scope);
          case 'deletecollection':
            return handleDeleteCollection(scope);
        }
        throw notAllowed();
      case 'status':
      case 'approval':
        if (info.verb === 'get') return handleGet(scope);
        if (info.verb === 'update') return handleUpdate(scope);
        if (info.verb === 'patch') return handlePatch(scope);
        throw notAllowed();
      case 'ephemeralcontainers':
        if (info.verb === 'get') return handleGet(scope);
        if (info.verb === 'update') return handleUpdate(scope);
        if (info.verb === 'patch') return handlePatch(scope);
        throw notAllowed();
      case 'scale':
        return handleScale(scope);
      case 'binding':
        if (info.verb !== 'create') throw notAllowed();
        return handleBinding(scope);
      case 'eviction':
        if (info.verb !== 'create') throw notAllowed();
        return handleEviction(scope);
      case 'finalize':
        if (info.verb !== 'update') throw notAllowed();
        return handleFinalize(scope);
      case 'log':
        if (info.verb !== 'get') throw notAllowed();
        return this.kubelets.log(info.namespace, info.name, scope.query, scope.res, scope.signal);
      case 'exec':
      case 'attach':
      case 'portforward':
        throw badRequest('Upgrade request required');
      case 'proxy':
        if (!PROXIED_RESOURCES.has(resource.resource) || resource.group !== '') throw notAllowed();
        await scope.admission.admit(connectAttributes(info, resource, scope.user));
        await scope.admission.validate(connectAttributes(info, resource, scope.user));
        return this.proxies.serve(info, scope.req, scope.res, scope.signal);
    }
    throw notAllowed();
  }
}

/** exec, attach, port-forward and proxy are admitted as CONNECT on the object's subresource. */
function connectAttributes(info: RequestInfo, target: ResourceInfo, user: UserInfo): AdmissionAttributes {
  const kind = info.subresource === 'proxy' ? `${target.kind}ProxyOptions` : (CONNECT_KINDS[info.subresource] ?? target.kind);
  return {
    operation: 'CONNECT',
    kind: { group: '', version: 'v1', kind },
    resource: { group: '', version: target.version, resource: target.resource },
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    dryRun: false,
    user,
  };
}

const CONNECT_KINDS: Record<string, string> = { exec: 'PodExecOptions', attach: 'PodAttachOptions', portforward: 'PodPortForwardOptions' };

/** A check that does not answer in time fails (upstream: --etcd-healthcheck-timeout, 2 s). */
const HEALTH_CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  // a check still running when the timer wins must not become an unhandled rejection
  promise.catch(() => {});
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
