import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../machinery/logger.js';
import { CNI_CONFIG_FILE, POD_NETWORK_NAME, writePodNetworkConfig } from '../cni/cni-config.js';
import { cniDel } from '../cni/cni-del.js';
import { NetnsGC } from '../cni/netns-gc.js';
import { PodIPGC } from '../cni/pod-ip-gc.js';
import { ensurePodMasquerade } from '../cni/pod-masquerade.js';
import { ContainerdSupervisor } from '../containerd/containerd-supervisor.js';
import { BUSYBOX_PATHS } from '../images/busybox-image.js';
import type { Registries } from '../containerd/registries-config.js';
import { CriRuntime } from './cri/cri-runtime.js';
import { ProcessRuntime } from './process/process-runtime.js';
import type { Runtime } from './runtime.js';

/** `auto` runs containerd when it can and falls back to host processes; the others insist. */
export type RuntimeChoice = 'auto' | 'containerd' | 'process';

export interface SelectRuntimeOptions {
  choice: RuntimeChoice;
  /** An existing CRI runtime's socket (`unix:///run/containerd/containerd.sock`); skips supervising one. */
  endpoint?: string;
  rootDir: string;
  /** The node's pod CIDR when given by flag; otherwise the pod network is configured once the node has one (`configurePodNetwork`). */
  podCIDR?: string;
  hostIP?: string;
  cniBinDir?: string;
  /** Registry mirrors, auth and TLS for a supervised containerd (`--registries`). */
  registries?: Registries;
  logger: Logger;
}

/** The runtime the kubelet uses, and how to let go of it. */
export interface SelectedRuntime {
  runtime: Runtime;
  kind: 'cri' | 'process';
  /** Why the process runtime was chosen over containerd (also shown in the node's Ready message). */
  fallback?: string;
  /** Writes the pod network (CNI) config for the node's `spec.podCIDR`; present when the kubelet owns the runtime's network config. */
  configurePodNetwork?(podCIDR: string): Promise<void>;
  /** Releases pod IPs whose sandbox the runtime no longer knows (CNI DEL); present with that same network config. */
  releaseLeakedPodIPs?(): Promise<unknown[]>;
  /** Removes the pinned network namespaces no sandbox holds (the supervised containerd's own directory). */
  removeStaleNetns?(): Promise<unknown[]>;
  /** Stops (`stopPods`) or leaves running the pods, then releases the runtime (and stops a supervised containerd). */
  close(stopPods: boolean): Promise<void>;
}

export class RuntimeUnavailableError extends Error {
  override readonly name = 'RuntimeUnavailableError';
}

const DEFAULT_CNI_BIN = '/usr/lib/cni';

function found(command: string): boolean {
  return !spawnSync(command, ['--version'], { stdio: 'ignore' }).error;
}

/** Why a supervised containerd cannot run here, or undefined when it can. */
export function whyNoContainerd(cniBinDir = DEFAULT_CNI_BIN): string | undefined {
  if (process.getuid?.() !== 0) return 'not running as root';
  if (!found('containerd')) return 'containerd is not installed';
  if (!found('runc')) return 'runc is not installed';
  if (!found('ctr')) return 'ctr (from the containerd package) is not installed';
  if (!existsSync(join(cniBinDir, 'bridge'))) return `CNI plugins are not installed in ${cniBinDir}`;
  // the sandbox ("pause") image is built from the host's static busybox, so no registry is needed
  if (!BUSYBOX_PATHS.some((p) => existsSync(p))) return 'busybox is not installed (busybox-static builds the sandbox image)';
  return undefined;
}

/**
 * Picks the kubelet's runtime as k3s does: an explicit CRI endpoint, else
 * its own containerd when root and the tools are there, else the process
 * runtime (with one clear log line saying why).
 */
export async function selectRuntime(o: SelectRuntimeOptions): Promise<SelectedRuntime> {
  const cniBinDir = o.cniBinDir ?? DEFAULT_CNI_BIN;
  if (o.endpoint) {
    const cri = await CriRuntime.connect(o.endpoint);
    o.logger.info('using an existing CRI runtime', { endpoint: o.endpoint, runtime: cri.version() });
    return { runtime: cri, kind: 'cri', close: (stopPods) => closeCri(cri, stopPods) };
  }
  const why = o.choice === 'process' ? undefined : whyNoContainerd(cniBinDir);
  if (o.choice === 'process' || why) {
    if (o.choice === 'containerd') throw new RuntimeUnavailableError(`--container-runtime containerd: ${why}`);
    const fallback = why ? `containerd unavailable (${why}): pods run as host processes with the process runtime` : undefined;
    if (fallback) o.logger.warn(`${fallback}; for real containers install containerd, runc, containernetworking-plugins, busybox-static and iptables and run as root`);
    const runtime = new ProcessRuntime({ hostIP: o.hostIP, stateDir: join(o.rootDir, 'runtime') });
    return { runtime, kind: 'process', fallback, close: (stopPods) => (stopPods ? runtime.close() : runtime.detach()) };
  }
  const cniConfDir = join(o.rootDir, 'cni', 'net.d');
  const ipamDataDir = join(o.rootDir, 'cni', 'ipam');
  // containerd watches the directory: pods get a network once the node's pod CIDR is known
  const configurePodNetwork = async (podCIDR: string) => {
    writePodNetworkConfig(cniConfDir, { podCIDR, ipamDataDir });
    try {
      await ensurePodMasquerade(podCIDR);
    } catch (err) {
      o.logger.warn('cannot masquerade the pod network: pods reach only the node and each other', { podCIDR, error: err instanceof Error ? err.message : String(err) });
    }
  };
  if (o.podCIDR) await configurePodNetwork(o.podCIDR);
  const supervisor = new ContainerdSupervisor({ dir: join(o.rootDir, 'containerd'), cniBinDir, cniConfDir, registries: o.registries, logger: o.logger });
  const endpoint = await supervisor.start();
  const cri = await CriRuntime.connect(endpoint);
  const podIPs = new PodIPGC({
    networkDir: join(ipamDataDir, POD_NETWORK_NAME),
    knownSandboxes: async () => new Set((await cri.listPodSandboxes()).map((s) => s.id)),
    creatingSince: () => cri.sandboxCreationsSince(),
    release: (a) => cniDel({ conflistPath: join(cniConfDir, CNI_CONFIG_FILE), binDir: cniBinDir, containerId: a.containerId, ifName: a.ifName }),
    logger: o.logger,
  });
  const netns = new NetnsGC({ dir: supervisor.paths.netns, heldPaths: () => cri.heldNetnsPaths(), creatingSince: () => cri.sandboxCreationsSince(), logger: o.logger });
  return {
    runtime: cri, kind: 'cri', configurePodNetwork,
    releaseLeakedPodIPs: () => podIPs.releaseLeaked(),
    removeStaleNetns: () => netns.removeStale(),
    async close(stopPods) {
      await closeCri(cri, stopPods);
      // every sandbox is gone: whatever namespace is still pinned is stale
      if (stopPods) await new NetnsGC({ dir: supervisor.paths.netns, heldPaths: async () => new Set(), creatingSince: () => undefined, minAgeMs: 0, logger: o.logger }).removeStale();
      await supervisor.stop();
    },
  };
}

async function closeCri(cri: CriRuntime, stopPods: boolean): Promise<void> {
  try {
    // one sandbox that will not go must not keep the others (or containerd's stop) from happening
    if (stopPods) for (const s of await cri.listPodSandboxes()) await cri.removePodSandbox(s.id).catch(() => undefined);
  } finally {
    await cri.close();
  }
}
