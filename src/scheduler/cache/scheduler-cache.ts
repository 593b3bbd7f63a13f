import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { realClock, type Clock } from '../../base/clock.js';
import type { NodeInfoLister } from '../framework/interface.js';
import { NodeInfo } from '../framework/node-info.js';
import { PodInfo, podKey } from '../framework/pod-info.js';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';
const REGION_LABEL = 'topology.kubernetes.io/region';

interface PodState {
  info: PodInfo;
  nodeName: string;
  assumed: boolean;
  /** Set once binding finished: an assumed pod the informer never confirms is dropped after it. */
  deadline?: number;
}

export interface SchedulerCacheOptions {
  /** How long an assumed, bound pod may wait for the informer to confirm it (default 30 s). */
  assumedTtlMs?: number;
  /** Time for assumed pods' deadlines and the cleanup loop's waits (default the real clock). */
  clock?: Clock;
}

/**
 * Nodes and the pods on them, fed by informers, plus "assumed" pods: counted
 * the moment a node is chosen, so back-to-back decisions never overcommit a
 * node while the binding is still on its way to the API server.
 */
export class SchedulerCache implements NodeInfoLister {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly pods = new Map<string, PodState>();
  private readonly imageCounts = new Map<string, number>();
  private nodeList?: NodeInfo[];
  /** Nodes holding pods with (required anti-)affinity, kept as pods come and go; lists built on demand. */
  private readonly withAffinity = new Set<NodeInfo>();
  private readonly withRequiredAnti = new Set<NodeInfo>();
  private withAffinityList?: NodeInfo[];
  private withRequiredAntiList?: NodeInfo[];
  private readonly ttl: number;
  private readonly clock: Clock;

  constructor(options: SchedulerCacheOptions = {}) {
    this.ttl = options.assumedTtlMs ?? 30_000;
    this.clock = options.clock ?? realClock;
  }

  /** Nodes with a Node object, interleaved across zones so a partial scan still spreads. */
  list(): readonly NodeInfo[] {
    if (!this.nodeList) this.nodeList = this.buildNodeList();
    return this.nodeList;
  }

  get(name: string): NodeInfo | undefined {
    const ni = this.nodes.get(name);
    return ni?.node ? ni : undefined;
  }

  havePodsWithAffinity(): readonly NodeInfo[] {
    this.withAffinityList ??= [...this.withAffinity].filter((ni) => ni.node);
    return this.withAffinityList;
  }

  havePodsWithRequiredAntiAffinity(): readonly NodeInfo[] {
    this.withRequiredAntiList ??= [...this.withRequiredAnti].filter((ni) => ni.node);
    return this.withRequiredAntiList;
  }

  imageNodeCount(image: string): number {
    return this.imageCounts.get(image) ?? 0;
  }

  podCount(): number {
    return this.pods.size;
  }

  addNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    let ni = this.nodes.get(name);
    if (!ni) this.nodes.set(name, (ni = new NodeInfo()));
    if (ni.node) this.countImages(ni, -1);
    const zoneChanged = !ni.node || zoneOf(ni.node) !== zoneOf(node);
    ni.setNode(node);
    this.countImages(ni, 1);
    if (zoneChanged) {
      // Also covers a node whose Node object arrives after its pods: the lists skip nodes without one.
      this.nodeList = undefined;
      this.withAffinityList = undefined;
      this.withRequiredAntiList = undefined;
    }
    this.track(ni);
  }

  updateNode(node: Node): void {
    this.addNode(node);
  }

  removeNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    const ni = this.nodes.get(name);
    if (!ni) return;
    if (ni.node) this.countImages(ni, -1);
    // Pods still bound to a deleted node stay accounted until they go too.
    if (ni.pods.length === 0) this.nodes.delete(name);
    else ni.node = undefined;
    this.nodeList = undefined;
    this.withAffinityList = undefined;
    this.withRequiredAntiList = undefined;
  }

  /** The informer saw a bound pod: confirms an assumed one or adds it. */
  addPod(pod: Pod): void {
    const key = podKey(pod);
    const state = this.pods.get(key);
    if (state?.assumed) {
      this.removeFromNode(state);
      this.pods.delete(key);
    } else if (state) {
      this.removeFromNode(state);
    }
    this.addToNode(pod);
  }

  updatePod(pod: Pod): void {
    this.addPod(pod);
  }

  removePod(pod: Pod): void {
    const key = podKey(pod);
    const state = this.pods.get(key);
    if (!state) return;
    this.removeFromNode(state);
    this.pods.delete(key);
  }

  isAssumed(pod: Pod): boolean {
    return this.pods.get(podKey(pod))?.assumed ?? false;
  }

  /** Counts a pod (with spec.nodeName set) on its node before the binding is written. */
  assumePod(info: PodInfo): void {
    if (this.pods.has(info.key)) throw new RangeError(`pod ${info.key} is already in the cache`);
    const nodeName = info.pod.spec?.nodeName ?? '';
    const ni = this.nodeFor(nodeName);
    ni.addPod(info);
    this.track(ni);
    this.pods.set(info.key, { info, nodeName, assumed: true });
  }

  finishBinding(pod: Pod): void {
    const state = this.pods.get(podKey(pod));
    if (state?.assumed) state.deadline = this.clock.now() + this.ttl;
  }

  /** Undoes an assumption whose binding failed. */
  forgetPod(pod: Pod): void {
    const key = podKey(pod);
    const state = this.pods.get(key);
    if (!state?.assumed) return;
    this.removeFromNode(state);
    this.pods.delete(key);
  }

  /** Drops assumed pods whose binding finished long ago but were never confirmed. */
  cleanupExpired(): number {
    const t = this.clock.now();
    let n = 0;
    for (const [key, state] of this.pods) {
      if (state.assumed && state.deadline !== undefined && state.deadline < t) {
        this.removeFromNode(state);
        this.pods.delete(key);
        n++;
      }
    }
    return n;
  }

  /** Runs cleanupExpired every second until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.clock.sleep(1000, signal);
      this.cleanupExpired();
    }
  }

  private addToNode(pod: Pod): void {
    const nodeName = pod.spec?.nodeName ?? '';
    const ni = this.nodeFor(nodeName);
    const info = ni.addPod(pod);
    this.track(ni);
    this.pods.set(info.key, { info, nodeName, assumed: false });
  }

  private removeFromNode(state: PodState): void {
    const ni = this.nodes.get(state.nodeName);
    if (!ni) return;
    ni.removePod(state.info.key);
    this.track(ni);
    if (!ni.node && ni.pods.length === 0) {
      this.nodes.delete(state.nodeName);
      this.untrack(ni);
    }
  }

  /** Keeps the affinity node sets in step with a node whose pods changed. */
  private track(ni: NodeInfo): void {
    if (ni.podsWithAffinity.length > 0 !== this.withAffinity.has(ni)) {
      if (ni.podsWithAffinity.length > 0) this.withAffinity.add(ni);
      else this.withAffinity.delete(ni);
      this.withAffinityList = undefined;
    }
    if (ni.podsWithRequiredAntiAffinity.length > 0 !== this.withRequiredAnti.has(ni)) {
      if (ni.podsWithRequiredAntiAffinity.length > 0) this.withRequiredAnti.add(ni);
      else this.withRequiredAnti.delete(ni);
      this.withRequiredAntiList = undefined;
    }
  }

  private untrack(ni: NodeInfo): void {
    if (this.withAffinity.delete(ni)) this.withAffinityList = undefined;
    if (this.withRequiredAnti.delete(ni)) this.withRequiredAntiList = undefined;
  }

  private nodeFor(name: string): NodeInfo {
    let ni = this.nodes.get(name);
    if (!ni) this.nodes.set(name, (ni = new NodeInfo()));
    return ni;
  }

  private countImages(ni: NodeInfo, delta: number): void {
    for (const image of ni.images.keys()) {
      const n = (this.imageCounts.get(image) ?? 0) + delta;
      if (n <= 0) this.imageCounts.delete(image);
      else this.imageCounts.set(image, n);
    }
  }

  private buildNodeList(): NodeInfo[] {
    const byZone = new Map<string, NodeInfo[]>();
    for (const ni of this.nodes.values()) {
      if (!ni.node) continue;
      const z = zoneOf(ni.node);
      let list = byZone.get(z);
      if (!list) byZone.set(z, (list = []));
      list.push(ni);
    }
    const zones = [...byZone.values()];
    const out: NodeInfo[] = [];
    for (let i = 0; out.length < zones.reduce((n, z) => n + z.length, 0); i++) {
      for (const z of zones) if (i < z.length) out.push(z[i]);
    }
    return out;
  }
}

function zoneOf(node: Node): string {
  const l = node.metadata?.labels ?? {};
  return `${l[REGION_LABEL] ?? ''}:${l[ZONE_LABEL] ?? ''}`;
}
