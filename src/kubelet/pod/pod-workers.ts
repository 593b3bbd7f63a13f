import type { Pod } from 'kubernetes-types/core/v1.js';
import type { DeletedFinalStateUnknown } from '../../client/cache/deleted-final-state-unknown.js';
import type { ResourceEventHandler } from '../../client/cache/resource-event-handler.js';
import { PodWorker, type PodWorkerDeps } from './pod-worker.js';

/**
 * One PodWorker per pod uid, fed by the pod informer. Workers run
 * independently; a worker that has finished terminating is dropped.
 */
export class PodWorkers implements ResourceEventHandler<Pod> {
  private readonly workers = new Map<string, PodWorker>();

  constructor(private readonly deps: PodWorkerDeps) {}

  onAdd(pod: Pod): void {
    this.dispatch(pod);
  }

  onUpdate(_old: Pod, pod: Pod): void {
    this.dispatch(pod);
  }

  onDelete(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = 'obj' in obj ? (obj as DeletedFinalStateUnknown<Pod>).obj : obj;
    const uid = pod?.metadata?.uid ?? '';
    const w = this.workers.get(uid);
    if (w) void w.remove().then(() => this.workers.delete(uid));
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

  size(): number {
    return this.workers.size;
  }

  private dispatch(pod: Pod): void {
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
