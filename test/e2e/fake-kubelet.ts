import type { Binding, Node, Pod } from 'kubernetes-types/core/v1.js';
import { Client } from '../../src/client/rest/client.js';
import { loadKubeconfig } from '../../src/client/rest/kubeconfig.js';
import { SharedIndexInformer } from '../../src/client/cache/shared-informer.js';
import { listWatcherFor } from '../../src/client/cache/list-watcher.js';
import { isConflict, isNotFound } from '../../src/client/rest/error-predicates.js';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const NODES = { group: '', version: 'v1', resource: 'nodes' };

/**
 * Stands in for the scheduler and the kubelets in e2e tests: registers Ready
 * nodes, binds unscheduled pods round-robin, reports bound pods Running and
 * Ready, and confirms graceful deletions at once.
 */
export class FakeKubelet {
  readonly client: Client;
  private readonly ac = new AbortController();
  private readonly informer: SharedIndexInformer<Pod>;
  private readonly busy = new Set<string>();
  private run?: Promise<void>;
  private next = 0;
  /** While false, pods stay Pending (to observe a rollout mid-way). */
  readyPods = true;

  constructor(
    kubeconfig: string,
    readonly nodes: string[] = ['node-1', 'node-2', 'node-3'],
  ) {
    this.client = new Client({ ...loadKubeconfig(kubeconfig), qps: -1 }, { component: 'fake-kubelet' });
    this.informer = new SharedIndexInformer<Pod>({ listerWatcher: listWatcherFor(this.client.resource<Pod>(PODS)) });
    this.informer.addEventHandler({ onAdd: (p) => this.handle(p), onUpdate: (_, p) => this.handle(p) });
  }

  async start(): Promise<void> {
    for (const name of this.nodes) {
      const node: Node = {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels: { 'kubernetes.io/hostname': name } },
        status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: new Date().toISOString(), lastTransitionTime: new Date().toISOString() }] },
      };
      try {
        const created = await this.client.resource<Node>(NODES).create(node);
        await this.client.resource<Node>(NODES).updateStatus({ ...created, status: node.status });
      } catch (err) {
        if (!(err instanceof Error && /exists/i.test(err.message))) throw err;
      }
    }
    this.run = this.informer.run(this.ac.signal);
  }

  /** Re-examines every cached pod (after flipping readyPods). */
  resync(): void {
    for (const p of this.informer.lister.list()) this.handle(p);
  }

  async stop(): Promise<void> {
    this.ac.abort();
    await this.run;
    this.client.close();
  }

  private handle(pod: Pod): void {
    const key = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    if (this.busy.has(key)) return;
    this.busy.add(key);
    this.act(pod)
      .catch((err: unknown) => {
        if (!isNotFound(err) && !isConflict(err) && !this.ac.signal.aborted) process.stderr.write(`fake kubelet: ${key}: ${String(err)}\n`);
      })
      .finally(() => {
        this.busy.delete(key);
        // The pod may have changed while we acted.
        const latest = this.informer.lister.namespace(pod.metadata?.namespace ?? '').get(pod.metadata?.name ?? '');
        if (latest && latest.metadata?.resourceVersion !== pod.metadata?.resourceVersion) this.handle(latest);
      });
  }

  private async act(pod: Pod): Promise<void> {
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const pods = this.client.resource<Pod>(PODS).namespace(ns);
    if (pod.metadata?.deletionTimestamp) {
      await pods.delete(name, { gracePeriodSeconds: 0 });
      return;
    }
    if (!pod.spec?.nodeName) {
      const node = this.nodes[this.next++ % this.nodes.length];
      const binding: Binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: ns }, target: { apiVersion: 'v1', kind: 'Node', name: node } };
      await pods.createSubresource(name, 'binding', binding);
      return;
    }
    if (!this.readyPods || pod.status?.phase === 'Running') return;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const status: Pod['status'] = {
      ...pod.status,
      phase: 'Running',
      podIP: `10.244.0.${(this.next++ % 250) + 2}`,
      hostIP: '10.0.0.1',
      startTime: now,
      conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: now })),
      containerStatuses: (pod.spec.containers ?? []).map((c) => ({ name: c.name, image: c.image ?? '', imageID: '', ready: true, restartCount: 0, started: true, state: { running: { startedAt: now } } })),
    };
    await pods.updateStatus({ ...structuredClone(pod), status } as Pod);
  }
}
