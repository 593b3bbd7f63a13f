import type { Pod } from 'kubernetes-types/core/v1.js';
import type { DeletedFinalStateUnknown } from '../../client/cache/deleted-final-state-unknown.js';
import type { ResourceEventHandler } from '../../client/cache/resource-event-handler.js';
import { realClock } from '../../base/clock.js';
import { PodWorker, type PodWorkerDeps } from './pod-worker.js';

/**
 * One PodWorker per pod uid, fed by the pod informer. Workers run
 * independently; a worker that has finished terminating is dropped.
 */
export class PodWorkers implements ResourceEventHandler<Pod> {
  private readonly workers = new Map<string, PodWorker>();
  private stopped = false;

  constructor(private readonly deps: PodWorkerDeps) {}

  onAdd(pod: Pod): void {
    this.dispatch(pod);
  }

  onUpdate(old: Pod, pod: Pod): void {
    // as upstream's pod config: an update that only carries status (mostly this kubelet's own writes) is a
    // reconcile, not a sync, unless the pod's readiness depends on conditions others write or it became terminal
    const w = this.workers.get(pod.metadata?.uid ?? '');
    if (w && !w.done && !this.stopped && onlyStatusChanged(old, pod)) return void w.update(pod);
    this.dispatch(pod);
  }

  onDelete(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = 'obj' in obj ? (obj as DeletedFinalStateUnknown<Pod>).obj : obj;
    const uid = pod?.metadata?.uid ?? '';
    const w = this.workers.get(uid);
    if (w) void w.remove().then(() => this.workers.delete(uid));
  }

  /** The pods that have workers (API and static pods). */
  pods(): Pod[] {
    return [...this.workers.values()].map((w) => w.currentPod);
  }

  /** The pods the eviction manager may evict: admitted, not terminal, not being deleted or evicted. */
  activePods(): Pod[] {
    return [...this.workers.values()].filter((w) => w.active).map((w) => w.currentPod);
  }

  /** Evicts a pod through its worker (see PodWorker.evict); resolves once it has stopped. */
  async evict(pod: Pod, o: Parameters<PodWorker['evict']>[0]): Promise<void> {
    const w = this.workers.get(pod.metadata?.uid ?? '');
    if (w && !w.done) await w.evict(o);
  }

  /** The worker for a pod by namespace/name (for the kubelet server). */
  find(namespace: string, name: string): { worker: PodWorker; pod: Pod } | undefined {
    for (const w of this.workers.values()) {
      const p = w.currentPod;
      if (p.metadata?.namespace === namespace && p.metadata?.name === name) return { worker: w, pod: p };
    }
    return undefined;
  }

  /** Asks the worker of a pod uid to resync (its container changed state); `resendStatus` also rewrites its status. */
  requestSync(uid: string, resendStatus = false): void {
    const w = this.workers.get(uid);
    if (w && !w.done) void (resendStatus ? w.resendStatus() : w.request());
  }

  /** Asks every worker in a namespace to resync (a ConfigMap or Secret there changed). */
  resyncNamespace(namespace: string): void {
    for (const w of this.workers.values()) if (w.currentPod.metadata?.namespace === namespace) void w.request();
  }

  /**
   * Upstream's HandlePodCleanups: every `periodMs`, once `ready()` says every
   * pod source has been read in full, pod sandboxes the runtime still holds
   * for pods this kubelet no longer knows (deleted while it was down) are
   * stopped and removed (the runtime tears their network down), then
   * `releasePodIPs` frees pod IPs no sandbox holds any more and
   * `removeStaleNetns` the network namespaces none holds.
   */
  async housekeeping(signal: AbortSignal, ready: () => boolean, o: { periodMs?: number; releasePodIPs?: () => Promise<unknown>; removeStaleNetns?: () => Promise<unknown> } = {}): Promise<void> {
    while (!signal.aborted) {
      await (this.deps.clock ?? realClock).sleep(o.periodMs ?? 10_000, signal);
      if (signal.aborted || this.stopped || !ready()) continue;
      try {
        await this.removeOrphans();
        await o.releasePodIPs?.();
        await o.removeStaleNetns?.();
      } catch (err) {
        this.deps.logger.warn('pod housekeeping failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** Removes sandboxes whose pod has no worker; returns their pod uids. One that will not go is retried next time, the others go now. */
  async removeOrphans(): Promise<string[]> {
    const orphans = (await this.deps.runtime.listPodSandboxes()).filter((s) => !this.workers.has(s.podUid));
    const removed: string[] = [];
    for (const s of orphans) {
      this.deps.logger.info('removing the sandbox of a pod that no longer exists', { podUid: s.podUid, sandbox: s.id });
      try {
        await this.deps.runtime.removePodSandbox(s.id);
      } catch (err) {
        this.deps.logger.warn('removing an orphaned pod sandbox failed', { podUid: s.podUid, sandbox: s.id, error: err instanceof Error ? err.message : String(err) });
        continue;
      }
      this.deps.cgroups?.remove(s.podUid);
      removed.push(s.podUid);
    }
    return removed;
  }

  /** The kubelet is shutting down: workers stop syncing and writing status, leaving containers to the runtime. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.workers.values()].map((w) => w.stop()));
  }

  size(): number {
    return this.workers.size;
  }

  private dispatch(pod: Pod): void {
    if (this.stopped) return;
    const uid = pod.metadata?.uid ?? '';
    let w = this.workers.get(uid);
    if (w?.done) return;
    if (!w) {
      w = new PodWorker(pod, this.deps);
      this.workers.set(uid, w);
    }
    const worker = w;
    worker.update(pod);
    void worker.request().then(() => {
      if (worker.done) this.workers.delete(uid);
    });
  }
}

/** Whether `pod` differs from `old` only in status (and bookkeeping), with nothing there the kubelet acts on. */
export function onlyStatusChanged(old: Pod, pod: Pod): boolean {
  const phase = pod.status?.phase;
  if (pod.spec?.readinessGates?.length || (phase !== old.status?.phase && (phase === 'Failed' || phase === 'Succeeded'))) return false;
  const rest = (p: Pod) => JSON.stringify([p.spec, { ...p.metadata, resourceVersion: undefined, managedFields: undefined }]);
  return rest(old) === rest(pod);
}
