import { setTimeout as sleep } from 'node:timers/promises';
import type { Node, Pod, PodCondition, Taint } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../src/client/rest/client.js';
import { isConflict, isNotFound } from '../../src/client/rest/error-predicates.js';
import { fitsNodeAffinity, untoleratedTaints } from '../../src/controllers/daemonset/node-eligibility.js';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const NODES = { group: '', version: 'v1', resource: 'nodes' };

/** Pod template labels that script what the simulated kubelet does with a pod. */
export const SIM_EXIT_CODE_LABEL = 'sim.skiff.dev/exit-code';
export const SIM_RUN_MS_LABEL = 'sim.skiff.dev/run-ms';

const time = (ms = Date.now()): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Stands in for the scheduler and kubelets until they exist: creates Node
 * objects, binds pending pods (honouring node affinity, nodeSelector and
 * NoSchedule taints) through pods/binding, marks bound pods Running and Ready
 * after `readyDelayMs`, ends pods labelled with an exit code after their run
 * time (Succeeded or Failed, with a terminated container status), and
 * finishes the deletion of terminating pods as a kubelet would.
 */
export class WorkloadSim {
  /** `seen <ns>/<name>` and `ready <ns>/<name>` entries, in the order they happened. */
  readonly log: string[] = [];
  private readonly started = new Map<string, number>();
  private readonly seen = new Set<string>();
  private rr = 0;

  constructor(
    private readonly client: Client,
    private readonly options: { readyDelayMs?: number; intervalMs?: number } = {},
  ) {}

  async addNode(name: string, labels: Record<string, string> = {}, taints: Taint[] = []): Promise<Node> {
    const now = time();
    const node = await this.client.resource<Node>(NODES).create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
      spec: { taints },
    });
    return this.client.resource<Node>(NODES).updateStatus({
      ...node,
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }], capacity: { cpu: '4', memory: '8Gi', pods: '110' }, allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
    });
  }

  /** Runs until the signal aborts; errors of one pass (conflicts, races with controllers) are retried on the next. */
  async run(signal: AbortSignal): Promise<void> {
    const interval = this.options.intervalMs ?? 100;
    while (!signal.aborted) {
      try {
        await this.pass();
      } catch (err) {
        if (!isConflict(err) && !isNotFound(err)) console.error('workload sim:', err);
      }
      await sleep(interval, undefined, { signal }).catch(() => undefined); // rejects only on abort, which ends the loop
    }
  }

  private async pass(): Promise<void> {
    const [pods, nodes] = await Promise.all([this.client.resource<Pod>(PODS).list(), this.client.resource<Node>(NODES).list()]);
    await Promise.all(pods.items.map((p) => this.step(p, nodes.items).catch((err: unknown) => {
      if (!isConflict(err) && !isNotFound(err)) throw err;
    })));
  }

  private async step(pod: Pod, nodes: Node[]): Promise<void> {
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const id = `${ns}/${name}`;
    const uid = pod.metadata?.uid ?? '';
    const pods = this.client.resource<Pod>(PODS).namespace(ns);
    if (!this.seen.has(uid)) {
      this.seen.add(uid);
      this.log.push(`seen ${id}`);
    }
    const phase = pod.status?.phase;
    if (pod.metadata?.deletionTimestamp) {
      if (phase !== 'Succeeded' && phase !== 'Failed') await pods.updateStatus({ ...pod, status: this.terminated(pod, 137, this.started.get(uid)) });
      await pods.delete(name, { gracePeriodSeconds: 0 });
      return;
    }
    if (!pod.spec?.nodeName) {
      const node = this.choose(pod, nodes);
      if (node) await pods.createSubresource(name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: ns }, target: { apiVersion: 'v1', kind: 'Node', name: node } });
      return;
    }
    if (phase !== 'Pending' && phase !== 'Running') return;
    const now = Date.now();
    if (!this.started.has(uid)) this.started.set(uid, now);
    const startedAt = this.started.get(uid)!;
    const exitLabel = pod.metadata?.labels?.[SIM_EXIT_CODE_LABEL];
    const runMs = Number(pod.metadata?.labels?.[SIM_RUN_MS_LABEL] ?? 300);
    if (exitLabel !== undefined && now - startedAt >= runMs) {
      await pods.updateStatus({ ...pod, status: this.terminated(pod, Number(exitLabel), startedAt) });
      return;
    }
    if (phase === 'Pending' && now - startedAt >= (this.options.readyDelayMs ?? 200)) {
      await pods.updateStatus({ ...pod, status: this.running(pod, startedAt) });
      this.log.push(`ready ${id}`);
    }
  }

  /** The scheduler's part: the node the pod's affinity pins, else a fitting untainted node, round robin. */
  private choose(pod: Pod, nodes: Node[]): string | undefined {
    const fitting = nodes.filter((n) => fitsNodeAffinity(pod.spec ?? { containers: [] }, n) && untoleratedTaints(n.spec?.taints ?? [], pod.spec?.tolerations ?? [], ['NoSchedule', 'NoExecute']).length === 0);
    if (fitting.length === 0) return undefined;
    return fitting[this.rr++ % fitting.length].metadata?.name;
  }

  private conditions(ready: boolean, at: number): PodCondition[] {
    const t = time(at);
    const s = ready ? 'True' : 'False';
    return [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: t },
      { type: 'Initialized', status: 'True', lastTransitionTime: t },
      { type: 'ContainersReady', status: s, lastTransitionTime: t },
      { type: 'Ready', status: s, lastTransitionTime: t },
    ];
  }

  private running(pod: Pod, startedAt: number): Pod['status'] {
    return {
      ...pod.status,
      phase: 'Running',
      startTime: time(startedAt),
      conditions: this.conditions(true, Date.now()),
      containerStatuses: (pod.spec?.containers ?? []).map((c) => ({ name: c.name, image: c.image ?? '', imageID: '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: time(startedAt) } } })),
    };
  }

  private terminated(pod: Pod, exitCode: number, startedAt = Date.now()): Pod['status'] {
    const finishedAt = time();
    return {
      ...pod.status,
      phase: exitCode === 0 ? 'Succeeded' : 'Failed',
      startTime: time(startedAt),
      conditions: this.conditions(false, Date.now()),
      containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
        name: c.name,
        image: c.image ?? '',
        imageID: '',
        ready: false,
        started: false,
        restartCount: 0,
        state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: time(startedAt), finishedAt } },
      })),
    };
  }
}
