import { setMaxListeners } from 'node:events';
import { realClock, type Clock } from '../base/clock.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigMap, Node, Pod, PodStatus, Secret, Service } from 'kubernetes-types/core/v1.js';
import { SharedInformerFactory } from '../client/cache/shared-informer-factory.js';
import { EventRecorder } from '../client/events/event-recorder.js';

import { isConflict, isNotFound, type Client } from '../client/rest/index.js';
import type { Logger } from '../machinery/logger.js';
import type { MetricsRegistry } from '../base/metrics/registry.js';
import { LeaseRenewer } from './node/lease-renewer.js';
import { readMachineInfo } from './node/machine-info.js';
import { NodeStatusReporter } from './node/node-status-reporter.js';
import { allocatable, capacity, type NodeConfig } from './node/node-status.js';
import { PodWorkers } from './pod/pod-workers.js';
import { ImagePuller } from './images/image-puller.js';
import { ImageGC, isImageGCRuntime, type ImageGCPolicy } from './images/image-gc.js';
import { PAUSE_IMAGE } from './images/busybox-image.js';
import { NodeImages } from './node/node-images.js';
import { hasContainerStats, hasImageService, type Runtime } from './runtime/runtime.js';
import { StatsProvider } from './stats/stats-provider.js';
import { KubeletServer } from './server/kubelet-server.js';
import { canReopenLogs, ContainerLogRotator } from './logs/container-log-rotator.js';
import { KubeletAuth } from './server/kubelet-auth.js';
import { selfSignedServingCert } from './server/serving-cert.js';
import { StreamingServer, type StreamTargets } from './server/streaming-server.js';
import { MirrorPods } from './static-pods/mirror-pods.js';
import { isMirrorPod } from './static-pods/static-pod-manifest.js';
import { StaticPodSource } from './static-pods/static-pod-source.js';
import { CONFIG_MAPS, NODES, PODS, SECRETS, SERVICES } from '../api/resource-refs.js';
import { serviceEnv } from './pod/service-env.js';
import { podReferences } from '../api/pod-references.js';
import { WatchBasedObjects } from './objects/watch-based-objects.js';
import { TokenManager } from './objects/token-manager.js';
import { resolveClaimPaths } from './volumes/claim-paths.js';
import type { KubeletDnsSettings } from './pod/pod-dns.js';
import type { PodCgroups } from './pod/pod-cgroups.js';
import type { SecurityOptions } from './pod/security-context.js';
import { SysctlAllowlist } from './pod/sysctl-allowlist.js';
import { EVICTED_REASON, EvictionManager, type EvictionManagerOptions } from './eviction/eviction-manager.js';
import { parseThresholdConfig } from './eviction/threshold-config.js';

/** How long a pod sync waits for the objects it refers to to be read before treating missing ones as not found. */
const OBJECT_SYNC_TIMEOUT_MS = 10_000;

export interface KubeletOptions {
  client: Client;
  runtime: Runtime;
  node: Omit<NodeConfig, 'runtimeVersion' | 'kubeletPort'>;
  rootDir: string;
  /** The node Lease's duration (default 40 s), renewed every quarter of it as upstream. */
  leaseDurationSeconds?: number;
  /** HTTPS port of the kubelet server (0: any free port, reported in the Node). */
  port: number;
  bindAddress: string;
  metrics: MetricsRegistry;
  logger: Logger;
  /** The node's address for hostIP and probes; default: measured. */
  nodeIP?: string;
  /** Static pod manifests (a directory or one file); default `<rootDir>/manifests`, '' turns the file source off. */
  podManifestPath?: string;
  /**
   * CA bundle whose client certificates authenticate callers of the kubelet
   * server (upstream's --client-ca-file); the API server presents one for
   * logs, exec, attach and port-forward. Required: the kubelet serves nobody
   * it cannot authenticate.
   */
  clientCA: string;
  /**
   * Configures the pod network for the node's `spec.podCIDR`; the kubelet
   * waits for the node IPAM controller to assign one before running pods.
   */
  configurePodNetwork?(podCIDR: string): Promise<void>;
  /** Frees pod IPs whose sandbox the runtime no longer holds (run in housekeeping after orphaned sandboxes are removed). */
  releaseLeakedPodIPs?(): Promise<unknown>;
  /** Removes pinned network namespaces no sandbox holds (run in housekeeping after leaked pod IPs are released). */
  removeStaleNetns?(): Promise<unknown>;
  /** Time and timers for heartbeats, status, resyncs, back-off and probes (default the real clock). */
  clock?: Clock;
  /** Cluster DNS for pods' resolv.conf (--cluster-dns, --cluster-domain, --resolv-conf). */
  dns?: KubeletDnsSettings;
  /** Seccomp profile root and default (--seccomp-default). */
  security?: SecurityOptions;
  /** Sysctl pod admission: the safe set plus --allowed-unsafe-sysctls. */
  sysctls?: SysctlAllowlist;
  /** Pod cgroups under kubepods/<qos class> (--cgroups-per-qos, --pod-max-pids), for a CRI runtime. */
  cgroups?: PodCgroups;
  /** Container log rotation (--container-log-max-size, --container-log-max-files; upstream's 10Mi and 5). */
  containerLogs?: { maxSize?: number; maxFiles?: number };
  /** Image garbage collection thresholds (--image-gc-high-threshold, --image-gc-low-threshold, --image-minimum-gc-age). */
  imageGC?: Partial<ImageGCPolicy>;
  /** The eviction manager's thresholds and periods (--eviction-hard, …); default upstream's hard thresholds. */
  eviction?: KubeletEvictionOptions;
}

export type KubeletEvictionOptions = Partial<Pick<EvictionManagerOptions, 'thresholds' | 'pressureTransitionPeriodMs' | 'maxPodGracePeriodSeconds' | 'monitoringIntervalMs' | 'localStorageCapacityIsolation'>>;

/** Wires node registration, heartbeats, the pod informer and workers, and the kubelet server. */
export class Kubelet {
  workers?: PodWorkers;

  constructor(private readonly opts: KubeletOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const { client, runtime, logger } = this.opts;
    // informers, heartbeats and the status loop each wait on this signal at once
    setMaxListeners(64, signal);
    mkdirSync(this.opts.rootDir, { recursive: true });
    const measure = () => readMachineInfo(this.opts.rootDir);
    const info = measure();
    const hostIP = this.opts.nodeIP ?? info.internalIP;
    const nodeName = this.opts.node.nodeName;

    const podInformers = new SharedInformerFactory(client, { fieldSelector: `spec.nodeName=${nodeName}` });
    const pods = podInformers.forResource<Pod>(PODS);
    // every Service, for the pods' service environment (KUBERNETES_SERVICE_HOST, …), as upstream's kubelet list-watches them
    const serviceInformers = new SharedInformerFactory(client);
    const services = serviceInformers.forResource<Service>(SERVICES);
    // as upstream's watch-based managers: one narrow watch per object a pod here refers to (what the Node authorizer allows)
    let onObjectChange = (_namespace: string): void => {};
    const configMaps = new WatchBasedObjects<ConfigMap>({
      client, resource: CONFIG_MAPS, logger, namesOf: (p) => podReferences(p).configMaps, onChange: (ns) => onObjectChange(ns),
    });
    const secrets = new WatchBasedObjects<Secret>({
      client, resource: SECRETS, logger, namesOf: (p) => podReferences(p).secrets, onChange: (ns) => onObjectChange(ns),
    });
    const tokens = new TokenManager({ client, logger, clock: this.opts.clock });
    const registerPod = (p: Pod) => {
      configMaps.registerPod(p);
      secrets.registerPod(p);
    };
    const unregisterPod = (p: Pod) => {
      tokens.forget(p);
      configMaps.unregisterPod(p);
      secrets.unregisterPod(p);
    };

    let alloc: Record<string, string> = allocatable(capacity(info, this.opts.node.maxPods), this.opts.node.reserved);
    const recorder = new EventRecorder({ client, component: 'kubelet', host: nodeName, onError: (err) => logger.debug('event dropped', { error: err }) });
    // upstream's nodeRef: the Node by name, its name standing in for the UID
    const nodeRef = { apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName, uid: nodeName } };
    const gc = isImageGCRuntime(runtime)
      ? new ImageGC({
          runtime, policy: this.opts.imageGC, pinnedImages: [PAUSE_IMAGE], logger, clock: this.opts.clock,
          recordNodeEvent: (reason, message) => recorder.event(nodeRef, 'Warning', reason, message),
        })
      : undefined;
    const stats: StatsProvider = new StatsProvider({
      nodeName, rootDir: this.opts.rootDir,
      runtime: hasContainerStats(runtime) ? runtime : undefined,
      imageFs: isImageGCRuntime(runtime) ? () => runtime.imageFsStats() : undefined,
      pods: (): Pod[] => workers.pods(),
    });
    // the status reporter exists once the kubelet server is up; pressure changes found before then wait for registration
    const statusReporter: { current?: NodeStatusReporter } = {};
    const eviction: EvictionManager = new EvictionManager({
      thresholds: parseThresholdConfig({}),
      ...this.opts.eviction,
      nodeName, logger, clock: this.opts.clock,
      summary: async () => (await stats.collect({ fs: true })).summary,
      activePods: () => workers.activePods(),
      evictPod: (pod, o) => workers.evict(pod, { reason: EVICTED_REASON, ...o }),
      reclaimNodeLevelResources: gc && (async () => void (await gc.deleteUnusedImages())),
      recordPodEvent: (pod, type, reason, message) => recorder.event(pod, type, reason, message),
      recordNodeEvent: (type, reason, message) => recorder.event(nodeRef, type, reason, message),
      // a pressure condition is news: report it now rather than at the next status check
      onConditionsChanged: () => void statusReporter.current?.sync(signal).catch((err: unknown) => logger.warn('node status update failed', { error: err instanceof Error ? err.message : String(err) })),
    });
    const workers: PodWorkers = new PodWorkers({
      runtime,
      rootDir: this.opts.rootDir,
      hostIP,
      logger,
      dns: this.opts.dns,
      security: this.opts.security,
      sysctls: this.opts.sysctls ?? new SysctlAllowlist(),
      admitPod: (pod) => eviction.admit(pod),
      cgroups: this.opts.cgroups,
      clock: this.opts.clock,
      allocatable: () => alloc,
      objects: {
        configMap: (ns, name) => configMaps.get(ns, name),
        secret: (ns, name) => secrets.get(ns, name),
        serviceAccountToken: (p, projection) => tokens.get(p, projection),
        claimPaths: (p) => resolveClaimPaths(p, client),
        serviceEnv: (p) => serviceEnv(services.lister.list(), p.metadata?.namespace ?? 'default', p.spec?.enableServiceLinks !== false),
        whenSynced: (p) =>
          Promise.all([
            configMaps.whenSynced(p, OBJECT_SYNC_TIMEOUT_MS, signal),
            secrets.whenSynced(p, OBJECT_SYNC_TIMEOUT_MS, signal),
            tokens.refresh(p),
            services.hasSynced() || services.whenSynced(AbortSignal.any([signal, AbortSignal.timeout(OBJECT_SYNC_TIMEOUT_MS)])),
          ]),
      },
      writeStatus: (pod, status) => this.writeStatus(pod, status),
      confirmDeletion: (pod) => this.confirmDeletion(pod),
      recordEvent: (pod, type, reason, message) => recorder.event(pod, type, reason, message),
      images: hasImageService(runtime) ? new ImagePuller({ images: runtime, recordEvent: (pod, type, reason, message) => recorder.event(pod, type, reason, message) }) : undefined,
    });
    this.workers = workers;
    runtime.onContainerEvent((s) => workers.requestSync(s.labels['io.kubernetes.pod.uid'] ?? ''));
    onObjectChange = (ns) => workers.resyncNamespace(ns);

    const tls = { ...(await selfSignedServingCert(info.hostname, [hostIP, '127.0.0.1', nodeName])), ca: this.opts.clientCA };
    const server = new KubeletServer({
      nodeName,
      auth: new KubeletAuth({ client, nodeName, clock: this.opts.clock }),
      bindAddress: this.opts.bindAddress,
      port: this.opts.port,
      tls,
      metrics: this.opts.metrics,
      pods: () => ({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: pods.lister.list() }),
      locateLog: (ns, name, container, previous) => {
        const found = workers.find(ns, name);
        if (!found) return undefined;
        const names = [...(found.pod.spec?.initContainers ?? []), ...(found.pod.spec?.containers ?? [])].map((c) => c.name);
        const cname = container ?? (names.length === 1 ? names[0] : undefined);
        if (!cname) return { error: `a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]` };
        const rec = found.worker.container(cname);
        if (!rec) return { error: `container ${cname} is not valid for pod ${name}` };
        const attempt = previous ? rec.last : rec.current;
        if (!attempt) return { error: previous ? `previous terminated container "${cname}" in pod "${name}" not found` : `container "${cname}" in pod "${name}" is waiting to start: ${rec.waiting?.reason ?? 'ContainerCreating'}` };
        return { path: attempt.logPath, running: () => rec.current?.id === attempt.id && rec.current.state === 'Running' };
      },
      streaming: new StreamingServer(runtime, streamTargets(workers)),
      stats,
    });
    const port = await server.start();
    logger.info('kubelet server listening', { port });

    const config: NodeConfig = { ...this.opts.node, kubeletPort: port, runtimeVersion: `${runtime.version().runtimeName}://${runtime.version().runtimeVersion}` };
    const nodeImages = hasImageService(runtime) ? new NodeImages(runtime, logger) : undefined;
    await nodeImages?.refresh();
    const reporter = new NodeStatusReporter({ client, config, images: nodeImages && (() => nodeImages.current), measure: () => {
      const m = measure();
      alloc = allocatable(capacity(m, config.maxPods), config.reserved);
      return { ...m, internalIP: hostIP };
    }, logger, clock: this.opts.clock, pressure: () => new Set(eviction.pressure()) });
    statusReporter.current = reporter;
    const node: Node = await reporter.register(signal);
    const lease = new LeaseRenewer({
      client,
      nodeName,
      nodeUid: node.metadata?.uid,
      logger,
      clock: this.opts.clock,
      leaseDurationSeconds: this.opts.leaseDurationSeconds,
      renewIntervalMs: this.opts.leaseDurationSeconds ? this.opts.leaseDurationSeconds * 250 : undefined,
    });

    const heartbeats = [reporter.run(signal, () => nodeImages?.refresh()), lease.run(signal), eviction.run(signal)];
    if (gc) heartbeats.push(gc.run(signal));
    if (canReopenLogs(runtime)) {
      heartbeats.push(new ContainerLogRotator({ runtime, ...this.opts.containerLogs, logger, clock: this.opts.clock }).run(signal));
    }
    if (this.opts.configurePodNetwork) {
      const podCIDR = node.spec?.podCIDR ?? (await this.waitForPodCIDR(signal));
      if (podCIDR) {
        await this.opts.configurePodNetwork(podCIDR);
        logger.info('pod network configured', { podCIDR });
      }
    }

    // static pods run from files; the API server only holds their mirrors, which are never run themselves
    const mirrors = new MirrorPods({
      client, nodeName, nodeUid: node.metadata?.uid ?? '', logger,
      mirrors: () => pods.lister.list().filter(isMirrorPod),
      onCreated: (uid) => workers.requestSync(uid, true),
    });
    const manifestPath = this.opts.podManifestPath ?? join(this.opts.rootDir, 'manifests');
    if (this.opts.podManifestPath === undefined) mkdirSync(manifestPath, { recursive: true });
    let staticPods: ReadonlyMap<string, Pod> = new Map();
    const staticSource = new StaticPodSource({
      path: manifestPath, nodeName, logger,
      onChange: (next) => {
        for (const [uid, p] of staticPods) if (!next.has(uid)) workers.onDelete(p);
        for (const [uid, p] of next) if (!staticPods.has(uid)) workers.onAdd(p);
        staticPods = next;
        void mirrors.setDesired(next);
      },
    });
    pods.addEventHandler({
      onAdd: (p) => {
        if (isMirrorPod(p)) return void mirrors.request();
        registerPod(p);
        workers.onAdd(p);
      },
      onUpdate: (o, p) => {
        if (isMirrorPod(p)) return void mirrors.request();
        registerPod(p);
        workers.onUpdate(o, p);
      },
      onDelete: (o) => {
        const p = 'obj' in o ? (o.obj as Pod | undefined) : o;
        if (p && isMirrorPod(p)) return void mirrors.request();
        if (p) unregisterPod(p);
        workers.onDelete(o);
      },
    });
    podInformers.start(signal);
    serviceInformers.start(signal);
    await Promise.all([
      ...heartbeats, manifestPath ? staticSource.run(signal) : undefined, manifestPath ? mirrors.run(signal) : undefined,
      workers.housekeeping(signal, () => pods.hasSynced(), { releasePodIPs: this.opts.releaseLeakedPodIPs, removeStaleNetns: this.opts.removeStaleNetns }),
    ]);
    // containers keep running: whether they stop is the runtime owner's call (skiff server stops them, skiff kubelet does not)
    await workers.stop();
    await recorder.stop();
    await podInformers.shutdown();
    await serviceInformers.shutdown();
    await Promise.all([configMaps.stop(), secrets.stop()]);
    await server.stop();
  }

  /** Polls the Node until the node IPAM controller has given it a pod CIDR (undefined once the signal aborts). */
  private async waitForPodCIDR(signal: AbortSignal): Promise<string | undefined> {
    this.opts.logger.info('waiting for the node IPAM controller to assign this node a pod CIDR');
    const nodes = this.opts.client.resource<Node>(NODES);
    while (!signal.aborted) {
      try {
        const cidr = (await nodes.get(this.opts.node.nodeName, { signal })).spec?.podCIDR;
        if (cidr) return cidr;
      } catch (err) {
        if (!signal.aborted) this.opts.logger.debug('reading the node failed', { error: err instanceof Error ? err.message : String(err) });
      }
      await (this.opts.clock ?? realClock).sleep(500, signal);
    }
    return undefined;
  }

  private async writeStatus(pod: Pod, status: PodStatus): Promise<void> {
    const rc = this.opts.client.resource<Pod>(PODS).namespace(pod.metadata?.namespace ?? 'default');
    for (let attempt = 0; ; attempt++) {
      try {
        await rc.patch(pod.metadata!.name!, { status }, 'merge', { subresource: 'status' });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt >= 3) throw err;
      }
    }
  }

  private async confirmDeletion(pod: Pod): Promise<void> {
    const rc = this.opts.client.resource<Pod>(PODS).namespace(pod.metadata?.namespace ?? 'default');
    try {
      await rc.delete(pod.metadata!.name!, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata?.uid } });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
}

/** Resolves exec, attach and port-forward targets through the pod workers. */
function streamTargets(workers: PodWorkers): StreamTargets {
  return {
    container(namespace, name, container) {
      const found = workers.find(namespace, name);
      if (!found) return { code: 404, message: 'pod does not exist' };
      const names = [...(found.pod.spec?.initContainers ?? []), ...(found.pod.spec?.containers ?? [])].map((c) => c.name);
      const cname = container || (names.length === 1 ? names[0] : undefined);
      if (!cname) return { code: 400, message: `a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]` };
      const current = found.worker.container(cname)?.current;
      if (!current || current.state !== 'Running') return { code: 404, message: `container not found ("${cname}")` };
      return { id: current.id, name: `${namespace}/${name}` };
    },
    sandbox(namespace, name) {
      const found = workers.find(namespace, name);
      const id = found?.worker.podSandboxId;
      if (!found || !id) return { code: 404, message: 'pod does not exist' };
      return { id, name: `${namespace}/${name}` };
    },
  };
}
