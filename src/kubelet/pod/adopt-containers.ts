import type { ContainerStatus as ApiContainerStatus, Pod } from 'kubernetes-types/core/v1.js';
import type { PodSandboxStatus, Runtime } from '../runtime/runtime.js';
import type { ContainerRecord } from './pod-status.js';

/** What a pod worker takes over from a runtime that kept running while the kubelet was away. */
export interface AdoptedPod {
  sandbox: PodSandboxStatus;
  /** Records that now hold a running container, each with the API status it had (to keep readiness as it was). */
  running: { record: ContainerRecord; reported?: ApiContainerStatus }[];
}

/**
 * Rebuilds a pod's container records from the runtime after a kubelet
 * restart, as upstream rebuilds its pod cache from CRI: the pod's ready
 * sandbox is kept, and for each container the newest attempt becomes the
 * current one and the one before it the last (for `logs --previous`), so
 * restart counts and start times carry over. Older attempts, containers that
 * were never started and other sandboxes of the pod are removed.
 */
export async function adoptContainers(runtime: Runtime, pod: Pod, records: ContainerRecord[], runtimeName: string): Promise<AdoptedPod | undefined> {
  const uid = pod.metadata?.uid ?? '';
  const mine = (await runtime.listPodSandboxes({ podUid: uid })).filter((s) => s.podUid === uid).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  const sandbox = mine.find((s) => s.state === 'Ready');
  for (const s of mine) if (s !== sandbox) await runtime.removePodSandbox(s.id);
  if (!sandbox) return undefined;
  const containers = await runtime.listContainers({ sandboxId: sandbox.id });
  const reported = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const running: AdoptedPod['running'] = [];
  const keep = new Set<string>();
  for (const record of records) {
    const attempts = containers
      .filter((c) => c.labels['io.kubernetes.container.name'] === record.spec.name && c.state !== 'Created')
      .sort((a, b) => b.attempt - a.attempt);
    const [current, last] = attempts;
    if (!current) continue;
    record.current = current;
    record.last = last;
    record.restartCount = current.attempt;
    keep.add(current.id);
    if (last) keep.add(last.id);
    if (current.state === 'Running') {
      running.push({ record, reported: reported.find((s) => s.name === record.spec.name && s.containerID === `${runtimeName}://${current.id}`) });
    }
  }
  for (const c of containers) if (!keep.has(c.id)) await runtime.removeContainer(c.id);
  return { sandbox, running };
}
