import { realClock, type Clock } from '../base/clock.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { listWatcherFor } from '../client/cache/list-watcher.js';
import { SharedIndexInformer } from '../client/cache/shared-informer.js';
import type { Client } from '../client/rest/client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../client/rest/error-predicates.js';
import { NODES, PODS } from '../api/resource-refs.js';

const wholeSeconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Nodes without a kubelet behind them: each registers as Ready with some
 * capacity, and pods bound to it are reported Running and Ready at once
 * (graceful deletions are confirmed at once), so workloads roll out in tests
 * without containers.
 */
export class SimulatedNodes {
  private readonly ac = new AbortController();
  private readonly informer: SharedIndexInformer<Pod>;
  private readonly busy = new Set<string>();
  private run: Promise<void> | undefined;
  private nextIp = 2;

  constructor(
    private readonly client: Client,
    readonly names: readonly string[],
    private readonly clock: Clock = realClock,
  ) {
    this.informer = new SharedIndexInformer<Pod>({ listerWatcher: listWatcherFor(client.resource<Pod>(PODS)) });
    this.informer.addEventHandler({ onAdd: (p) => this.handle(p), onUpdate: (_, p) => this.handle(p) });
  }

  async start(): Promise<void> {
    for (const name of this.names) await this.register(name);
    this.run = this.informer.run(this.ac.signal);
  }

  async stop(): Promise<void> {
    this.ac.abort();
    await this.run;
  }

  private async register(name: string): Promise<void> {
    const now = new Date(this.clock.now()).toISOString();
    const resources = { cpu: '8', memory: '32Gi', pods: '110' };
    const node: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } } };
    const status: Node['status'] = {
      capacity: resources,
      allocatable: resources,
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'simulated node', lastHeartbeatTime: now, lastTransitionTime: now }],
      addresses: [{ type: 'Hostname', address: name }],
    };
    const nodes = this.client.resource<Node>(NODES);
    try {
      const created = await nodes.create(node);
      await nodes.updateStatus({ ...created, status });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  private handle(pod: Pod): void {
    if (!pod.spec?.nodeName || !this.names.includes(pod.spec.nodeName)) return;
    const key = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    if (this.busy.has(key)) return;
    this.busy.add(key);
    this.act(pod)
      .catch((err: unknown) => {
        // a newer version of the pod arrives as its own event; a gone pod needs nothing
        if (!isNotFound(err) && !isConflict(err) && !this.ac.signal.aborted) throw err;
      })
      .catch(() => undefined)
      .finally(() => this.busy.delete(key));
  }

  private async act(pod: Pod): Promise<void> {
    const pods = this.client.resource<Pod>(PODS).namespace(pod.metadata?.namespace ?? '');
    if (pod.metadata?.deletionTimestamp) {
      await pods.delete(pod.metadata.name ?? '', { gracePeriodSeconds: 0 });
      return;
    }
    if (pod.status?.phase === 'Running' || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return;
    const now = wholeSeconds(new Date(this.clock.now()));
    const status: Pod['status'] = {
      ...pod.status,
      phase: 'Running',
      podIP: `10.244.${Math.floor(this.nextIp / 250) % 250}.${(this.nextIp++ % 250) + 2}`,
      hostIP: '10.0.0.1',
      startTime: now,
      conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: now })),
      containerStatuses: (pod.spec?.containers ?? []).map((c) => ({ name: c.name, image: c.image ?? '', imageID: '', ready: true, restartCount: 0, started: true, state: { running: { startedAt: now } } })),
    };
    await pods.updateStatus({ ...structuredClone(pod), status } as Pod);
  }
}
